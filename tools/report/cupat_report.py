#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cupat_report.py — draws what `cupat bench --json` measured: one
self-contained HTML page (the charts inline as SVG, the numbers beside them)
and every chart as PNG and SVG files for the docs.

Called by `cupat report RESULTS.json... [--out DIR]` (tools/cupat/cmd_report.c),
which finds this script and the interpreter; it can also be run directly.

Why matplotlib: it is maintained, it writes SVG and PNG from the same figure,
and it is on the GPU machines (Debian: python3-matplotlib) where the results
are made; gnuplot is not. The library itself stays pure C: only this script
needs Python.

The charts (docs/report.md says what each one shows):
  roofline             every rung of every table that counts flops, at its
                       arithmetic intensity, under the measured copy and FP32
                       roofs (vendor rows marked; the book's A100 roof dashed)
  ladder-*             one per ladder table: rate per rung, speed-up over the
                       rung before, the ceiling and the vendor as lines, the
                       books' figures (book_figures.json) as a marked series
  sweep-*              one per sweep table with 2D block shapes: a heat map of
                       the rate over (block x, block y), the book's ms noted
  timeline-*, histogram-*, accuracy-*
                       tables of those kinds (the streams lab's Gantt charts,
                       image histograms, error per rung; schema in
                       docs/report.md)
  ncu-*                one per pattern whose rows carry `cupat bench --ncu`'s
                       profiles: DRAM bytes read and written per rung (bars)
                       against the case's minimum-bytes model (a marker),
                       with occupancy, issue-slot use and the limiter

Exit status: 0 page written; 2 bad arguments; 3 the input is malformed or
incomplete (one line naming the file and the field; nothing written);
4 matplotlib is missing (what to install is printed); 1 anything else.
"""

import argparse
import html
import json
import math
import os
import re
import shutil
import sys
import tempfile

EXIT_INPUT = 3
EXIT_NO_PLOT = 4
EXIT_OUTPUT = 5  # a chart or the page could not be put in --out (the message names it)
HERE = os.path.dirname(os.path.abspath(__file__))


def die(msg, code):
    print("cupat report: " + msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- input --

class InputError(Exception):
    pass


def need(obj, key, types, where, allow_null=False):
    if not isinstance(obj, dict) or key not in obj:
        raise InputError("%s: '%s' is missing" % (where, key))
    v = obj[key]
    if v is None and allow_null:
        return None
    if isinstance(v, bool) or not isinstance(v, types):
        want = "/".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise InputError("%s: '%s' should be %s, not %s" % (where, key, want, type(v).__name__))
    return v


NUM = (int, float)
TABLE_KINDS = ("ladder", "sweep", "timeline", "histogram", "accuracy")
NCU_FIELDS = ("kernels", "dram_read_bytes", "dram_write_bytes", "achieved_occupancy_pct",
              "issue_slot_pct", "memory_pct", "sm_pct")
NCU_OPTIONAL = ("gpu_time_ms", "model_bytes", "measured_over_model",
                # the main kernel's launch (files written before it have none)
                "registers_per_thread", "shared_mem_per_block_bytes", "threads_per_block",
                "theoretical_occupancy_pct")
LIMITERS = ("memory", "compute", "latency")


def check_ncu(r, where):
    """A row's `cupat bench --ncu` profile: its figures, or {"error": why}."""
    n = need(r, "ncu", dict, where)
    where += ": ncu"
    if "error" in n:
        need(n, "error", str, where)
        return
    for k in NCU_FIELDS + tuple(k for k in NCU_OPTIONAL if k in n):
        v = need(n, k, NUM, where)
        if not math.isfinite(v) or v < 0:
            raise InputError("%s: '%s' = %r is not a count, time or percentage" % (where, k, v))
    if "main_kernel" in n:
        need(n, "main_kernel", str, where)
    if need(n, "limiter", str, where) not in LIMITERS:
        raise InputError("%s: limiter '%s' is not one of %s" % (where, n["limiter"], ", ".join(LIMITERS)))


def check_row(t, r, where):
    kind = t["kind"]
    need(r, "name", str, where)
    if kind in ("ladder", "sweep"):
        need(r, "kind", str, where)
        need(r, "check", str, where)
        for k in ("ms_median", "gbs"):
            v = need(r, k, NUM, where, allow_null=True)
            if v is not None and (not math.isfinite(v) or v < 0):
                raise InputError("%s: '%s' = %r is not a time or rate" % (where, k, v))
        need(r, "gflops", NUM, where, allow_null=True) if "gflops" in r else None
        if "ncu" in r:
            check_ncu(r, where)
        if kind == "sweep" and "block" in r:
            b = need(r, "block", list, where)
            if len(b) != 2 or not all(isinstance(x, NUM) for x in b):
                raise InputError("%s: 'block' should be [x, y]" % where)
    elif kind == "timeline":
        need(r, "lane", str, where)
        s, e = need(r, "start_ms", NUM, where), need(r, "end_ms", NUM, where)
        if not (e >= s):
            raise InputError("%s: end_ms %r is before start_ms %r" % (where, e, s))
    elif kind == "histogram":
        counts = need(r, "counts", list, where)
        if not counts or not all(isinstance(c, NUM) and c >= 0 for c in counts):
            raise InputError("%s: 'counts' should be a list of counts" % where)
    elif kind == "accuracy":
        v = need(r, "error", NUM, where, allow_null=True)
        if v is not None and v < 0:
            raise InputError("%s: 'error' = %r is negative" % (where, v))


def load(path):
    """The results of one run, checked field by field (InputError names the
    first bad one)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror))
    try:
        d = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("%s: not UTF-8 text" % path)
    except json.JSONDecodeError as e:
        raise InputError("%s: not valid JSON (line %d column %d: %s)" % (path, e.lineno, e.colno, e.msg))
    if not isinstance(d, dict):
        raise InputError("%s: the top level should be an object" % path)
    for k in ("tool", "device", "date", "commit", "backend"):
        need(d, k, str, path)
    # The ceilings are what ladder and sweep tables are measured against; a
    # file without such tables (`cupat hist`, a lab's timeline) may leave them
    # out, but ceilings that are there are checked all the same.
    rated = isinstance(d.get("tables"), list) and any(
        isinstance(t, dict) and t.get("kind") in ("ladder", "sweep") for t in d["tables"])
    if rated or "ceilings" in d:
        ce = need(d, "ceilings", dict, path)
        for k in ("copy_gbs", "read_gbs", "fp32_gflops"):
            v = need(ce, k, NUM, path + ": ceilings")
            if not (v > 0 and math.isfinite(v)):
                raise InputError("%s: ceilings: '%s' = %r is not a rate" % (path, k, v))
    else:
        d["ceilings"] = None
    tables = need(d, "tables", list, path)
    if not tables:
        raise InputError("%s: 'tables' is empty: nothing to draw" % path)
    for i, t in enumerate(tables):
        where = "%s: tables[%d]" % (path, i)
        for k in ("pattern", "title", "case", "kind"):
            need(t, k, str, where)
        if t["kind"] not in TABLE_KINDS:
            raise InputError("%s: kind '%s' is not one of %s" % (where, t["kind"], ", ".join(TABLE_KINDS)))
        if t["kind"] in ("ladder", "sweep"):
            need(t, "bytes", NUM, where)
            need(t, "flops", NUM, where)
            if need(t, "ceiling", str, where) not in ("copy", "read", "fp32", "tensor"):
                raise InputError("%s: ceiling '%s' is not copy, read, fp32 or tensor" % (where, t["ceiling"]))
        rows = need(t, "rows", list, where)
        if not rows:
            raise InputError("%s: 'rows' is empty" % where)
        for j, r in enumerate(rows):
            if not isinstance(r, dict):
                raise InputError("%s.rows[%d]: should be an object" % (where, j))
            check_row(t, r, "%s.rows[%d] (%s)" % (where, j, r.get("name", "?")))
    d["_path"] = path
    return d


def load_book(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        b = json.load(f)
    return b.get("figures", [])


# ------------------------------------------------------------- helpers --

def slug(s):
    s = re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()
    return s[:60] or "x"


def flop_bound(t):
    """Tables rated in GFLOP/s: bound by the FP32 pipes or the tensor cores."""
    return t["ceiling"] in ("fp32", "tensor")


def rate_of(t, r):
    """The row's rate in the table's unit: GFLOP/s for fp32- and
    tensor-bound tables, else GB/s. None when the row was not timed."""
    if flop_bound(t):
        v = r.get("gflops")
        if v is None and r.get("ms_median") and t["flops"] > 0:
            v = t["flops"] / r["ms_median"] / 1e6
        return v
    v = r.get("gbs")
    if v is None and r.get("ms_median") and t["bytes"] > 0:
        v = t["bytes"] / r["ms_median"] / 1e6
    return v


def unit_of(t):
    return "GFLOP/s" if flop_bound(t) else "GB/s"


def ceiling_of(run, t):
    c = run["ceilings"]
    if t["ceiling"] == "tensor":
        # the dense tensor-core peak `cupat info` measured (the larger of
        # f16 and bf16); runs from before it was measured: the FP32 one
        tc = [c.get(k) for k in ("tensor_f16_gflops", "tensor_bf16_gflops")]
        tc = [v for v in tc if isinstance(v, (int, float)) and v > 0]
        return max(tc) if tc else c["fp32_gflops"]
    return {"copy": c["copy_gbs"], "read": c["read_gbs"], "fp32": c["fp32_gflops"]}[t["ceiling"]]


def label_of(t):
    """Title and case: "f32 sum n=2^24, read once"; the title alone where the
    case repeats it ("gemm 4096x..." has title "gemm")."""
    return t["case"] if t["title"] == t["pattern"] else "%s %s" % (t["title"], t["case"])


def fmt_amount(v):
    for unit, s in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= unit:
            return "%.3g %s" % (v / unit, s)
    return "%.3g " % v


# --------------------------------------------------------------- charts --

class Charts:
    """Draws into a staging folder: svg/NAME.svg, png/NAME.png."""

    def __init__(self, plt, stage):
        self.plt = plt
        self.stage = stage
        self.made = []  # (name, title, caption)
        os.makedirs(os.path.join(stage, "svg"))
        os.makedirs(os.path.join(stage, "png"))

    def save(self, fig, name, title, caption):
        names = {m[0] for m in self.made}
        base, k = name, 2
        while name in names:
            name = "%s-%d" % (base, k)
            k += 1
        # no dates in the files: the same results give the same bytes
        fig.savefig(os.path.join(self.stage, "svg", name + ".svg"), format="svg", bbox_inches="tight",
                    metadata={"Date": None})
        fig.savefig(os.path.join(self.stage, "png", name + ".png"), format="png", dpi=110, bbox_inches="tight",
                    metadata={"Software": None})
        self.plt.close(fig)
        self.made.append((name, title, caption))
        return name


PATTERN_COLORS = {}


def color_of(pattern):
    palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
               "#bcbd22", "#7f7f7f", "#d62728", "#ff7f0e", "#393b79", "#637939"]
    if pattern not in PATTERN_COLORS:
        PATTERN_COLORS[pattern] = palette[len(PATTERN_COLORS) % len(palette)]
    return PATTERN_COLORS[pattern]


def subtitle(run):
    return "%s · %s · commit %s" % (run["device"], run["date"][:10], run["commit"])


def runs_subtitle(runs, roof_run):
    """One run: its subtitle. Several: say so, with their dates and commits
    (the roof is the first run's with ceilings)."""
    if len(runs) == 1:
        return subtitle(runs[0])
    dates = sorted({r["date"][:10] for r in runs})
    commits = []
    for r in runs:
        if r["commit"] not in commits:
            commits.append(r["commit"])
    return "%s · %d runs, %s\ncommits %s · the roof: %s's run" % (
        roof_run["device"], len(runs), dates[0] if len(dates) == 1 else dates[0] + " to " + dates[-1],
        ", ".join(commits), roof_run["commit"])


def draw_roofline(ch, runs):
    """The roof of the first run with ceilings (the caller makes sure one has)."""
    plt = ch.plt
    run0 = next(r for r in runs if r["ceilings"])
    bw, peak = run0["ceilings"]["copy_gbs"], run0["ceilings"]["fp32_gflops"]
    fig, ax = plt.subplots(figsize=(9.5, 6.2))
    xs = [10 ** (k / 20.0) for k in range(-80, 81)]
    ax.plot(xs, [min(x * bw, peak) for x in xs], color="black", lw=2,
            label="measured roof: copy %.0f GB/s, FP32 %.1f TFLOP/s" % (bw, peak / 1e3))
    # PMPP 5.1's A100 example (19.5 TFLOP/s, 1.555 TB/s): the book's roof
    ax.plot(xs, [min(x * 1555.0, 19500.0) for x in xs], color="grey", lw=1.2, ls="--",
            label="PMPP 5.1's A100 roof (book): 1555 GB/s, 19.5 TFLOP/s")
    # tables bound by the tensor cores get their own roof: the dense peak
    # that `cupat info` measured (the run with such tables, else the first)
    tc_runs = [r for r in runs if r["ceilings"] and any(t.get("ceiling") == "tensor" for t in r["tables"])]
    roof_top = peak
    if tc_runs:
        t0 = next(t for t in tc_runs[0]["tables"] if t.get("ceiling") == "tensor")
        tpk = ceiling_of(tc_runs[0], t0)
        if tpk > peak:
            roof_top = tpk
            ax.plot(xs, [min(x * bw, tpk) for x in xs], color="#2ca02c", lw=1.4, ls="-.",
                    label="tensor-core roof: %.0f TFLOP/s dense (measured)" % (tpk / 1e3))
    ridge = peak / bw
    ax.axvline(ridge, color="black", lw=0.6, ls=":")
    ax.annotate("ridge %.1f FLOP/B" % ridge, (ridge, peak * 1.15), fontsize=8, ha="center")
    skipped, labelled = [], set()
    classes = []
    for run in runs:
        for t in run["tables"]:
            if t["kind"] != "ladder":
                continue
            if not (t["flops"] > 0 and t["bytes"] > 0):
                skipped.append("%s (%s)" % (t["title"], t["case"]))
                continue
            ai = t["flops"] / t["bytes"]
            best = None
            for r in t["rows"]:
                if r["kind"] == "reference":
                    continue
                g = r.get("gflops")
                if g is None and r.get("ms_median"):
                    g = t["flops"] / r["ms_median"] / 1e6
                if not g:
                    continue
                vendor = r["kind"] == "vendor"
                mk = "X" if vendor else ("o" if r.get("default") else ".")
                ax.scatter([ai], [g], marker=mk, s=60 if (vendor or r.get("default")) else 14,
                           color="#ff7f0e" if vendor else color_of(t["pattern"]),
                           edgecolors="black" if r.get("default") else "none", zorder=3)
                if not vendor and (best is None or g > best[1]):
                    best = (r["name"], g)
            if best:
                roof = min(ai * bw, peak)
                classes.append((t["pattern"], t["case"], ai, "memory" if ai < ridge else "compute",
                                best[0], best[1], best[1] / roof))
                if t["pattern"] not in labelled:  # one label a pattern, staggered
                    labelled.add(t["pattern"])
                    dy = (-14, 6, 16)[len(labelled) % 3]
                    ax.annotate(t["pattern"], (ai, best[1]), textcoords="offset points", xytext=(8, dy),
                                fontsize=8, color=color_of(t["pattern"]),
                                arrowprops=dict(arrowstyle="-", color=color_of(t["pattern"]), lw=0.5))
    if any(r.get("default") for run in runs for t in run["tables"] for r in t["rows"]):
        ax.scatter([], [], marker="o", color="white", edgecolors="black", label="default rung")
    ax.scatter([], [], marker=".", color="grey", label="other rungs")
    ax.scatter([], [], marker="X", color="#ff7f0e", label="vendor (CUB, cuBLAS, ...)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per byte of the minimum traffic)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.set_xlim(1e-3, 1e3)
    ax.set_ylim(0.1, max(peak, roof_top) * 4)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("Roofline: every rung that does arithmetic\n" + runs_subtitle(runs, run0), fontsize=10)
    cap = "Points: rungs at the arithmetic intensity of their case's minimum bytes and flops."
    if skipped:
        cap += " Not drawn (no arithmetic): " + ", ".join(sorted(set(skipped))) + "."
    name = ch.save(fig, "roofline", "Roofline", cap)
    return name, classes


def book_for(book, t):
    out = []
    for b in book:
        if b.get("pattern") != t["pattern"]:
            continue
        if b.get("case") and b["case"] not in label_of(t):
            continue
        out.append(b)
    return out


def draw_ladder(ch, run, t, book):
    plt = ch.plt
    rows = [r for r in t["rows"]]
    names = [r["name"] for r in rows]
    vals = [rate_of(t, r) for r in rows]
    unit = unit_of(t)
    ceil = ceiling_of(run, t)
    h = max(2.6, 0.34 * len(rows) + 1.6)
    fig, ax = plt.subplots(figsize=(9.5, h))
    ys = list(range(len(rows)))[::-1]
    colors = []
    for r in rows:
        if r["kind"] == "vendor":
            colors.append("#ff7f0e")
        elif r["kind"] == "reference":
            colors.append("#b0b0b0")
        elif r.get("default"):
            colors.append("#08519c")
        else:
            colors.append("#6baed6")
    present = [v for v in vals if v]
    logx = bool(present) and max(present + [ceil]) / max(min(present), 1e-9) > 30
    bars = ax.barh(ys, [v or 0 for v in vals], color=colors, edgecolor="none", height=0.7)
    for y, r, v, b in zip(ys, rows, vals, bars):
        bad = r["check"] not in ("ok", "-")
        if bad:
            b.set_hatch("//")
            b.set_edgecolor("red")
        if not v:
            ax.annotate("not timed" + (" (%s)" % r["check"] if bad else ""), (0, y), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=7, color="red")
            continue
        txt = "%.3g ms" % r["ms_median"] if r.get("ms_median") else ""
        if r.get("speedup_prev"):
            txt += "  ×%.2f" % r["speedup_prev"]
        if r.get("vs_vendor"):
            txt += "  (%.2f× vendor)" % r["vs_vendor"]
        if bad:
            txt += "  CHECK %s" % r["check"]
        ax.annotate(txt, (v, y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7,
                    color="red" if bad else "black")
    ax.axvline(ceil, color="#d62728", ls="--", lw=1.2, label="%s ceiling %.0f %s" % (t["ceiling"], ceil, unit))
    vend = [v for r, v in zip(rows, vals) if r["kind"] == "vendor" and v]
    if vend:
        ax.axvline(vend[0], color="#ff7f0e", ls=":", lw=1.4, label="vendor %.0f %s" % (vend[0], unit))
    bk = book_for(book, t)
    if bk:
        bx, by = [], []
        for b in bk:
            if b["rung"] in names:
                v = b["value"]
                if b.get("unit") == "ms":
                    v = (t["flops"] if flop_bound(t) else t["bytes"]) / v / 1e6
                bx.append(v)
                by.append(ys[names.index(b["rung"])])
        if bx:
            devs = sorted({b["device"] for b in bk})
            ax.scatter(bx, by, marker="D", color="black", s=22, zorder=4,
                       label="the book: %s (%s)" % (", ".join(devs), ", ".join(sorted({b["source"] for b in bk}))))
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("%s (minimum traffic%s / median time)" % (unit, " flops" if unit == "GFLOP/s" else " bytes"))
    top = max(present + [ceil]) if present else ceil
    if logx:  # room on the right for the labels: a decade
        ax.set_xscale("log")
        ax.set_xlim(min(present) / 2, top * 12)
    else:
        ax.set_xlim(0, top * 1.45)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    ax.set_title("%s — %s\n%s" % (t["title"], t["case"], subtitle(run)), fontsize=10, pad=22)
    cap = "%s: %s a call%s; bars are rungs (dark: the default), orange the vendor, grey references." % (
        t["case"], fmt_amount(t["bytes"]) + "B", (", %sFLOP" % fmt_amount(t["flops"])) if t["flops"] else "")
    if t.get("note"):
        cap += " " + t["note"]
    return ch.save(fig, "ladder-%s-%s" % (slug(t["pattern"]), slug(label_of(t))),
                   "%s — %s" % (t["title"], t["case"]), cap)


def draw_sweep(ch, run, t):
    plt = ch.plt
    rows = [r for r in t["rows"] if "block" in r]
    unit = unit_of(t)
    if not rows:
        return draw_ladder(ch, run, t, [])
    bxs = sorted({r["block"][0] for r in rows})
    bys = sorted({r["block"][1] for r in rows})
    grid = [[float("nan")] * len(bxs) for _ in bys]
    fig, ax = plt.subplots(figsize=(1.1 * len(bxs) + 3.2, 0.75 * len(bys) + 2.2))
    for r in rows:
        v = rate_of(t, r)
        if v:
            grid[bys.index(r["block"][1])][bxs.index(r["block"][0])] = v
    im = ax.imshow(grid, cmap="viridis", origin="lower", aspect="auto")
    for r in rows:
        i, j = bys.index(r["block"][1]), bxs.index(r["block"][0])
        v = grid[i][j]
        txt = ("%.0f\n%.3g ms" % (v, r["ms_median"])) if v == v and r.get("ms_median") else "-"
        if r.get("book_ms"):
            txt += "\nbook %.3g ms" % r["book_ms"]
        ax.text(j, i, txt, ha="center", va="center", fontsize=7,
                color="white" if v == v and v < 0.6 * max(x for row in grid for x in row if x == x) else "black")
    ax.set_xticks(range(len(bxs)))
    ax.set_xticklabels([str(int(b)) for b in bxs])
    ax.set_yticks(range(len(bys)))
    ax.set_yticklabels([str(int(b)) for b in bys])
    ax.set_xlabel("block x (threads)")
    ax.set_ylabel("block y (threads)")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(unit)
    ax.set_title("%s — %s: block shapes\n%s" % (t["title"], t["case"], subtitle(run)), fontsize=10)
    cap = "Rate over the block shapes of the sweep (cells: %s, median ms; the book's ms where it prints one)." % unit
    return ch.save(fig, "sweep-%s-%s" % (slug(t["pattern"]), slug(label_of(t))),
                   "%s — %s (sweep)" % (t["title"], t["case"]), cap)


def draw_timeline(ch, run, t):
    plt = ch.plt
    lanes = []
    for r in t["rows"]:
        if r["lane"] not in lanes:
            lanes.append(r["lane"])
    fig, ax = plt.subplots(figsize=(9.5, 0.45 * len(lanes) + 1.8))
    ops = sorted({r.get("op", r["name"]) for r in t["rows"]})
    cmap = plt.get_cmap("tab10")
    for r in t["rows"]:
        y = len(lanes) - 1 - lanes.index(r["lane"])
        op = r.get("op", r["name"])
        ax.barh(y, r["end_ms"] - r["start_ms"], left=r["start_ms"], height=0.6,
                color=cmap(ops.index(op) % 10), edgecolor="black", lw=0.3)
    from matplotlib.patches import Patch
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(lanes[::-1], fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.legend(handles=[Patch(color=cmap(k % 10), label=op) for k, op in enumerate(ops)], fontsize=7,
              loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(len(ops), 6), frameon=False)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title("%s — %s\n%s" % (t["title"], t["case"], subtitle(run)), fontsize=10, pad=20)
    return ch.save(fig, "timeline-%s-%s" % (slug(t["pattern"]), slug(label_of(t))),
                   "%s — %s (timeline)" % (t["title"], t["case"]), t.get("note", "Each bar: one operation on its stream or engine."))


def draw_histogram(ch, run, t):
    plt = ch.plt
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    cols = {"r": "#d62728", "red": "#d62728", "g": "#2ca02c", "green": "#2ca02c", "b": "#1f77b4",
            "blue": "#1f77b4", "a": "#7f7f7f", "alpha": "#7f7f7f", "gray": "#404040"}
    lo, hi = t.get("lower", 0), t.get("upper", None)
    for r in t["rows"]:
        c = r["counts"]
        top = hi if hi is not None else len(c)
        w = (top - lo) / len(c)
        xs = [lo + (k + 0.5) * w for k in range(len(c))]
        ax.step(xs, c, where="mid", color=cols.get(r["name"].lower(), None), lw=1, label=r["name"])
    ax.set_xlabel(t.get("x_label", "value"))
    ax.set_ylabel("count")
    if t.get("log_counts"):
        ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.set_title("%s — %s\n%s" % (t["title"], t["case"], subtitle(run)), fontsize=10)
    return ch.save(fig, "histogram-%s-%s" % (slug(t["pattern"]), slug(label_of(t))),
                   "%s — %s (histogram)" % (t["title"], t["case"]), t.get("note", "Counts per bin."))


def draw_accuracy(ch, run, t):
    plt = ch.plt
    rows = t["rows"]
    fig, ax = plt.subplots(figsize=(9.5, max(2.6, 0.32 * len(rows) + 1.6)))
    ys = list(range(len(rows)))[::-1]
    errs = [r["error"] for r in rows]
    tiny = min([e for e in errs if e] or [1e-17]) / 10
    ax.barh(ys, [e if e else tiny for e in errs], color="#9467bd", height=0.7)
    for y, r in zip(ys, rows):
        ax.annotate("%.3g" % r["error"] if r["error"] is not None else "n/a", (r["error"] or tiny, y),
                    xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
        if r.get("bound"):
            ax.plot([r["bound"]], [y], marker="|", color="red", ms=12)
    ax.set_yticks(ys)
    ax.set_yticklabels([r["name"] for r in rows], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel(t.get("x_label", "relative error"))
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title("%s — %s\n%s" % (t["title"], t["case"], subtitle(run)), fontsize=10)
    return ch.save(fig, "accuracy-%s-%s" % (slug(t["pattern"]), slug(label_of(t))),
                   "%s — %s (accuracy)" % (t["title"], t["case"]),
                   t.get("note", "Error per rung (log scale); red ticks: the rung's bound."))


def ncu_tables(tabs):
    """The (run, table) pairs of one pattern with rows `cupat bench --ncu` profiled."""
    return [(run, t) for run, t in tabs
            if t["kind"] in ("ladder", "sweep") and any("ncu" in r for r in t["rows"])]


def draw_ncu(ch, pattern, tabs):
    """Per rung: DRAM bytes read and written in one call (stacked bars)
    against the case's minimum-bytes model (a diamond); occupancy, issue-slot
    use and the limiter written beside each bar."""
    plt = ch.plt
    multi = len(tabs) > 1
    rows = []
    for run, t in tabs:
        for r in t["rows"]:
            if "ncu" not in r:
                continue
            label = r["name"] + (" (vendor)" if r.get("kind") == "vendor" else "")
            rows.append((t, r, "%s: %s" % (label_of(t), label) if multi else label))
    h = max(2.6, 0.36 * len(rows) + 1.9)
    fig, ax = plt.subplots(figsize=(9.5, h))
    ys = list(range(len(rows)))[::-1]
    xs = []
    for y, (t, r, _) in zip(ys, rows):
        n = r["ncu"]
        if "error" in n:
            continue
        rd, wr = n["dram_read_bytes"] / 1e6, n["dram_write_bytes"] / 1e6
        model = n.get("model_bytes", t["bytes"]) / 1e6
        xs += [v for v in (rd + wr, model) if v > 0]
    logx = bool(xs) and max(xs) / min(xs) > 30
    lo = min(xs) / 2 if logx else 0
    for y, (t, r, _) in zip(ys, rows):
        n = r["ncu"]
        if "error" in n:
            ax.annotate("ncu failed: " + n["error"][:90], (lo if logx else 0, y), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=7, color="red")
            continue
        rd, wr = n["dram_read_bytes"] / 1e6, n["dram_write_bytes"] / 1e6
        dark = r.get("default") or r.get("kind") == "vendor"
        # bars from the axis' left end (0, or below the smallest value on a
        # log axis) to the bytes read, then on to read + written
        ax.barh(y, max(rd - lo, 0), left=lo, color="#08519c" if dark else "#3182bd", height=0.7,
                label="DRAM read")
        ax.barh(y, rd + wr - max(rd, lo), left=max(rd, lo), color="#9ecae1", height=0.7,
                label="DRAM written")
        model = n.get("model_bytes", t["bytes"]) / 1e6
        if model > 0:
            ax.scatter([model], [y], marker="D", color="black", s=26, zorder=4,
                       label="minimum-bytes model of the case")
        txt = []
        if n.get("measured_over_model") is not None:
            txt.append("%.2f× model" % n["measured_over_model"])
        txt.append("occ %.0f%%" % n["achieved_occupancy_pct"])
        txt.append("issue %.0f%%" % n["issue_slot_pct"])
        txt.append(n["limiter"])
        if n["kernels"] != 1:
            txt.append("%d kernels" % n["kernels"])
        ax.annotate(" · ".join(txt), (max(rd + wr, model), y), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=7)
    # one legend entry per series (matplotlib repeats a label per bar)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for hd, lb in zip(handles, labels):
        if lb and lb not in seen:
            seen[lb] = hd
    if seen:
        ax.legend(list(seen.values()), list(seen.keys()), fontsize=7, loc="lower left",
                  bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    ax.set_yticks(ys)
    ax.set_yticklabels([lb for _, _, lb in rows], fontsize=8)
    ax.set_xlabel("MB (10^6 bytes) moved to and from DRAM in one call, by Nsight Compute")
    if logx:
        ax.set_xscale("log")
        ax.set_xlim(lo, max(xs) * 20)
    else:
        ax.set_xlim(0, (max(xs) if xs else 1) * 1.9)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(True, axis="x", alpha=0.3)
    run0 = tabs[0][0]
    ax.set_title("%s — DRAM traffic measured against the minimum-bytes model\n%s" % (pattern, subtitle(run0)),
                 fontsize=10, pad=22)
    cap = ("`cupat bench %s --ncu`: each row's call once under Nsight Compute (its kernels summed). Bars: "
           "DRAM bytes read (dark: the default rung or the vendor) and written; diamonds: the case's minimum "
           "bytes (each input read once, each output written once); beside each bar the ratio to the model, "
           "achieved occupancy and issue-slot use (time-weighted over the kernels) and the limiter (memory or "
           "compute where its %% of peak is the larger and at least 60, else latency)." % pattern)
    return ch.save(fig, "ncu-%s" % slug(pattern), "%s — DRAM bytes against the model (ncu)" % pattern, cap)


# ----------------------------------------------------------------- page --

def svg_inline(path):
    with open(path, encoding="utf-8") as f:
        s = f.read()
    i = s.find("<svg")
    s = s[i:] if i >= 0 else s
    return re.sub(r"<metadata>.*?</metadata>", "", s, flags=re.S)  # RDF about the file, not the chart


def ncu_cells(r):
    """--ncu's columns of a row: DRAM MB, x model, occupancy, issue slots, limiter."""
    n = r.get("ncu")
    if n is None:
        return "<td></td>" * 5
    if "error" in n:
        return '<td></td><td></td><td></td><td></td><td title="%s">error</td>' % html.escape(n["error"])
    ratio = n.get("measured_over_model")
    return "<td>%.1f</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%s</td>" % (
        (n["dram_read_bytes"] + n["dram_write_bytes"]) / 1e6, "%.2fx" % ratio if ratio is not None else "",
        n["achieved_occupancy_pct"], n["issue_slot_pct"], html.escape(n["limiter"]))


def numbers_table(run, t):
    unit = unit_of(t)
    ncu = any("ncu" in r for r in t["rows"])
    out = ["<table><tr><th>row</th><th>kind</th><th>median ms</th><th>%s</th><th>%% of %s</th>"
           "<th>vs prev</th><th>vs vendor</th>%s<th>check</th><th>technique</th></tr>" % (
               unit, t["ceiling"],
               "<th>DRAM MB</th><th>x model</th><th>occupancy %</th><th>issue slots %</th><th>limiter</th>"
               if ncu else "")]
    for r in t["rows"]:
        v = rate_of(t, r)
        cell = lambda x, f: (f % x) if isinstance(x, NUM) and x is not None else ""
        out.append("<tr%s><td>%s%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                   "%s<td>%s</td><td>%s</td></tr>" % (
                       ' class="default"' if r.get("default") else "", html.escape(r["name"]),
                       " (default)" if r.get("default") else "", html.escape(r.get("kind", "")),
                       cell(r.get("ms_median"), "%.4f"), cell(v, "%.1f"),
                       cell(v / ceiling_of(run, t) * 100 if v else None, "%.1f"),
                       cell(r.get("speedup_prev"), "%.2fx"), cell(r.get("vs_vendor"), "%.2fx"),
                       ncu_cells(r) if ncu else "",
                       html.escape(r.get("check", "")),
                       html.escape(r.get("technique", "") + (" [%s]" % r["source"] if r.get("source") else ""))))
    out.append("</table>")
    return "\n".join(out)


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}
figure{margin:1.2em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.85em;color:#444}
table{border-collapse:collapse;font-size:.8em;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
td:first-child,td:last-child,th:last-child{text-align:left}tr.default{font-weight:bold}
.meta td{text-align:left}nav a{margin-right:1em}details{margin:.3em 0 1.5em}"""


def write_page(stage, runs, ch, sections, classes):
    run0 = runs[0]
    made = {m[0]: m for m in ch.made}
    p = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
         "<title>cupat report — %s</title><style>%s</style></head><body>" % (html.escape(run0["device"]), CSS),
         "<h1>cupat report</h1>",
         "<table class=\"meta\">"]
    for run in runs:
        p.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>commit %s</td><td>%s backend</td></tr>" % (
            html.escape(os.path.basename(run["_path"])), html.escape(run["device"]), html.escape(run["date"]),
            html.escape(run["commit"]), html.escape(run["backend"])))
    c = next((r["ceilings"] for r in runs if r["ceilings"]), None)
    p.append("</table>")
    if c:
        p.append("<p>Ceilings measured in the run: copy %.1f GB/s, read %.1f GB/s, FP32 %.0f GFLOP/s. "
                 "Every rate is the minimum traffic (or flops) of the case over the median time; "
                 "rows whose check failed are hatched in red.</p>" % (c["copy_gbs"], c["read_gbs"], c["fp32_gflops"]))
    p.append("<nav>" + " ".join('<a href="#%s">%s</a>' % (html.escape(s[0]), html.escape(s[1]))
                               for s in sections) + "</nav>")

    def figure(name):
        n, title, cap = made[name]
        return ('<figure id="chart-%s">%s<figcaption>%s <a href="png/%s.png">PNG</a> · <a href="svg/%s.svg">SVG</a>'
                "</figcaption></figure>" % (n, svg_inline(os.path.join(stage, "svg", n + ".svg")),
                                            html.escape(cap), n, n))

    for sid, stitle, items in sections:
        p.append('<h2 id="%s">%s</h2>' % (html.escape(sid), html.escape(stitle)))
        for kind, payload in items:
            if kind == "chart":
                p.append(figure(payload))
            elif kind == "numbers":
                run, t = payload
                p.append("<details><summary>the numbers</summary>%s</details>" % numbers_table(run, t))
            elif kind == "classes":
                p.append("<table><tr><th>pattern</th><th>case</th><th>FLOP/B</th><th>bound</th>"
                         "<th>best rung</th><th>GFLOP/s</th><th>of roof</th></tr>")
                for pat, case, ai, bound, rung, g, frac in classes:
                    p.append("<tr><td>%s</td><td>%s</td><td>%.3g</td><td>%s</td><td>%s</td><td>%.1f</td>"
                             "<td>%.0f%%</td></tr>" % (html.escape(pat), html.escape(case), ai, bound,
                                                      html.escape(rung), g, frac * 100))
                p.append("</table>")
    p.append("</body></html>")
    with open(os.path.join(stage, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(p))
    with open(os.path.join(stage, "charts.json"), "w", encoding="utf-8") as f:
        json.dump({"charts": [{"name": n, "title": t, "svg": "svg/%s.svg" % n, "png": "png/%s.png" % n}
                              for n, t, _ in ch.made]}, f, indent=1)


def publish(stage, out, made):
    """Moves the staged page into out: each chart this run drew replaces the
    file of its name in out/svg and out/png, then charts.json and index.html.
    Nothing else in out is touched: no folder is removed or emptied, and any
    other file in svg/ or png/ (the user's, or a chart an earlier report drew
    that this one does not) stays where it is."""
    os.makedirs(out, exist_ok=True)
    for sub in ("svg", "png"):
        dst = os.path.join(out, sub)
        os.makedirs(dst, exist_ok=True)
        for name in made:
            f = name + "." + sub
            os.replace(os.path.join(stage, sub, f), os.path.join(dst, f))
    for f in ("charts.json", "index.html"):  # the page last: it names the rest
        os.replace(os.path.join(stage, f), os.path.join(out, f))


def main(argv):
    ap = argparse.ArgumentParser(prog="cupat report", description="Draw cupat bench results.")
    ap.add_argument("results", nargs="+", help="JSON files written by `cupat bench --json`")
    ap.add_argument("--out", default="report", help="folder for index.html, svg/ and png/ (default: report)")
    ap.add_argument("--book", default=os.path.join(HERE, "book_figures.json"),
                    help="the books' figures to set beside ours")
    a = ap.parse_args(argv)
    try:
        runs = [load(p) for p in a.results]
        book = load_book(a.book)
    except InputError as e:
        die("%s; no page written" % e, EXIT_INPUT)
    except (OSError, ValueError) as e:
        die("%s: %s; no page written" % (a.book, e), EXIT_INPUT)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die("matplotlib is not installed for %s: install it (Debian/Ubuntu: apt-get install "
            "python3-matplotlib; elsewhere: %s -m pip install matplotlib), or name another "
            "interpreter with --python" % (sys.executable, sys.executable), EXIT_NO_PLOT)
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "cupat"  # same ids, same files, run after run
    out = os.path.abspath(a.out)
    parent = os.path.dirname(out)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        die("--out %s: cannot create %s: %s" % (a.out, parent, e.strerror), 2)
    stage = tempfile.mkdtemp(prefix=".cupat-report-", dir=parent)
    try:
        ch = Charts(plt, stage)
        sections, classes = [], []
        if any(r["ceilings"] for r in runs):  # no ceilings, no roof (e.g. `cupat hist` alone)
            roof, classes = draw_roofline(ch, runs)
            sections.append(("roofline", "Roofline", [("chart", roof), ("classes", None)]))
        by_pattern = {}
        for run in runs:
            for t in run["tables"]:
                by_pattern.setdefault(t["pattern"], []).append((run, t))
        for pat, tabs in by_pattern.items():
            items = []
            for run, t in tabs:
                draw = {"ladder": lambda: draw_ladder(ch, run, t, book), "sweep": lambda: draw_sweep(ch, run, t),
                        "timeline": lambda: draw_timeline(ch, run, t),
                        "histogram": lambda: draw_histogram(ch, run, t),
                        "accuracy": lambda: draw_accuracy(ch, run, t)}[t["kind"]]
                items.append(("chart", draw()))
                if t["kind"] in ("ladder", "sweep"):
                    items.append(("numbers", (run, t)))
            profiled = ncu_tables(tabs)
            if profiled:  # `cupat bench --ncu`: measured DRAM bytes against the model
                items.append(("chart", draw_ncu(ch, pat, profiled)))
            sections.append(("p-" + slug(pat), pat, items))
        write_page(stage, runs, ch, sections, classes)
        try:
            publish(stage, out, [m[0] for m in ch.made])
        except OSError as e:
            die("--out %s: %s: %s" % (a.out, e.filename or out, e.strerror), EXIT_OUTPUT)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    print("cupat report: %d charts, %s" % (len(ch.made), os.path.join(out, "index.html")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
