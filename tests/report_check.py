#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""report_check.py — the tests of `cupat report` (tests/report.cmake).

  report_check.py CUPAT MODE WORKDIR [JSON...]

MODE draw: the page is made from JSON; every chart the results call for
  (the roofline, one a ladder or sweep table, one a timeline / histogram /
  accuracy table, one `ncu-PATTERN` a pattern whose rows carry `cupat bench
  --ncu` profiles) exists as a PNG (signature, IHDR of a sensible size) and an
  SVG (well-formed XML, an <svg> root, text in it), index.html references
  each one (inline SVG, links to the PNG and SVG) and charts.json lists them;
  where rows were profiled, the numbers tables have the ncu columns.
MODE malformed: truncated JSON, then a table without rows, then a row with a
  negative time, then an ncu profile with negative bytes: each exits 1 naming
  the file and the field, and writes no page.
MODE noplot: an interpreter without matplotlib: exit 1 saying what to install.
MODE nopython: --python names nothing: exit 1 saying what to install.
MODE hist: `cupat hist IMAGE --json FILE` for each IMAGE given, then draw
  those files as above (a histogram chart a file, no roofline: the files have
  no ceilings, which the report then does not ask for).
Exit 0 pass, 1 fail, 77 skipped (no interpreter with matplotlib: $CUPAT_PYTHON).
Only the standard library here; the checks do not trust the report's own
manifest for what should exist: they count the tables themselves.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg)
    return cond


def run(cupat, args, env=None):
    p = subprocess.run([cupat, "report"] + args, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if len(head) < 33 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def expected_kinds(paths):
    """How many charts of each prefix the results call for."""
    want = {}
    profiled = set()  # patterns with `--ncu` rows: one ncu chart each, over all the files
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        if "ceilings" in d:  # the roof comes from the first run with ceilings
            want["roofline"] = 1
        for t in d["tables"]:
            k = t["kind"]
            if k in ("ladder", "sweep") and any("ncu" in r for r in t["rows"]):
                profiled.add(t["pattern"])
            if k == "sweep" and not any("block" in r for r in t["rows"]):
                k = "ladder"
            want[k] = want.get(k, 0) + 1
    if profiled:
        want["ncu"] = len(profiled)
    return want


def ncu_expected(paths):
    """Whether any row of the results was profiled (`cupat bench --ncu`)."""
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        if any("ncu" in r for t in d["tables"] for r in t["rows"] if isinstance(r, dict)):
            return True
    return False


def draw(cupat, work, paths):
    out = os.path.join(work, "page")
    rc, so, se = run(cupat, paths + ["--out", out])
    if not check(rc == 0, "cupat report exited %d: %s" % (rc, se.strip())):
        return
    man_path = os.path.join(out, "charts.json")
    if not check(os.path.isfile(man_path), "no charts.json"):
        return
    with open(man_path) as f:
        charts = json.load(f)["charts"]
    names = [c["name"] for c in charts]
    check(len(set(names)) == len(names), "chart names repeat: %s" % names)
    have = {}
    for n in names:
        prefix = "roofline" if n == "roofline" else n.split("-")[0]
        have[prefix] = have.get(prefix, 0) + 1
    want = expected_kinds(paths)
    check(have == want, "charts by kind %s, want %s" % (have, want))
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        page = f.read()
    check(page.lstrip().startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>"), "index.html is not a whole page")
    loads = re.findall(r'(?:src|href)\s*=\s*["\']\s*(?:https?:)?//|url\(\s*["\']?(?:https?:)?//|@import', page)
    check(not loads, "index.html loads something from the network: %s" % loads[:3])
    for n in names:
        png = os.path.join(out, "png", n + ".png")
        svg = os.path.join(out, "svg", n + ".svg")
        if check(os.path.isfile(png), "%s: no PNG" % n):
            wh = png_size(png)
            if check(wh is not None, "%s: not a PNG" % n):
                check(wh[0] >= 600 and wh[1] >= 200 and wh[0] <= 4000 and wh[1] <= 6000,
                      "%s: PNG %dx%d is not a sensible size" % (n, wh[0], wh[1]))
            check(os.path.getsize(png) > 8000, "%s: PNG of %d bytes is nearly empty" % (n, os.path.getsize(png)))
        if check(os.path.isfile(svg), "%s: no SVG" % n):
            try:
                root = ET.parse(svg).getroot()
                check(root.tag.endswith("svg"), "%s: SVG root is <%s>" % (n, root.tag))
                texts = [e for e in root.iter() if e.tag.endswith("text")]
                check(len(texts) >= 5, "%s: SVG has %d text elements (labels missing?)" % (n, len(texts)))
            except ET.ParseError as e:
                check(False, "%s: SVG does not parse: %s" % (n, e))
        check('id="chart-%s"' % n in page, "%s: not in index.html" % n)
        check('href="png/%s.png"' % n in page and 'href="svg/%s.svg"' % n in page,
              "%s: index.html does not link its PNG and SVG" % n)
    check(page.count("<svg") >= len(names), "index.html inlines %d SVGs for %d charts" % (page.count("<svg"), len(names)))
    if ncu_expected(paths):  # the numbers tables show the profiles
        check("<th>DRAM MB</th><th>x model</th>" in page and "<th>limiter</th>" in page,
              "index.html's numbers tables lack the ncu columns")
    # a second run over the same folder replaces the page and each chart it
    # draws, and leaves any other file there alone (it may be the user's:
    # the report removes nothing it did not write); on the small input
    # only: drawing the committed run twice doubles the time
    if len(names) > 10:
        print("draw: %d charts checked" % len(names))
        return
    other = os.path.join(out, "png", "not-a-chart.png")
    with open(other, "wb") as f:
        f.write(b"x")
    redrawn = os.path.join(out, "png", names[0] + ".png")
    with open(redrawn, "wb") as f:
        f.write(b"")
    rc, so, se = run(cupat, paths + ["--out", out])
    check(rc == 0 and os.path.getsize(redrawn) > 8000, "a second run did not replace %s (rc %d)" % (redrawn, rc))
    with open(other, "rb") as f:
        check(f.read() == b"x", "a second run changed %s, a file it did not draw" % other)
    print("draw: %d charts checked" % len(names))


def malformed(cupat, work, paths):
    src = paths[0]
    with open(src) as f:
        text = f.read()
    d = json.loads(text)
    cases = []
    cases.append(("truncated", text[: len(text) // 2], "not valid JSON"))
    d1 = json.loads(text)
    del d1["tables"][0]["rows"]
    cases.append(("no rows", json.dumps(d1), "tables[0]: 'rows' is missing"))
    d2 = json.loads(text)
    d2["tables"][-1]["rows"][0]["ms_median"] = -1
    cases.append(("negative time", json.dumps(d2), "'ms_median' = -1 is not a time or rate"))
    d3 = json.loads(text)
    del d3["ceilings"]
    cases.append(("no ceilings", json.dumps(d3), "'ceilings' is missing"))
    d4 = dict(d)
    d4["tables"] = []
    cases.append(("no tables", json.dumps(d4), "'tables' is empty"))
    d5 = json.loads(text)
    d5["tables"][0]["rows"][0]["ncu"] = {
        "kernels": 1, "dram_read_bytes": -1, "dram_write_bytes": 0, "achieved_occupancy_pct": 50,
        "issue_slot_pct": 10, "memory_pct": 90, "sm_pct": 10, "limiter": "memory"}
    cases.append(("ncu negative bytes", json.dumps(d5),
                  "ncu: 'dram_read_bytes' = -1 is not a count, time or percentage"))
    for what, body, msg in cases:
        bad = os.path.join(work, "bad-%s.json" % what.replace(" ", "-"))
        with open(bad, "w") as f:
            f.write(body)
        out = os.path.join(work, "bad-page-%s" % what.replace(" ", "-"))
        # a good file first: the bad one must still stop the whole page
        rc, so, se = run(cupat, [src, bad, "--out", out])
        check(rc == 1, "%s: exit %d, want 1" % (what, rc))
        check(msg in se and os.path.basename(bad) in se, "%s: message %r lacks %r and the file name" % (what, se.strip(), msg))
        check(len(se.strip().splitlines()) == 1, "%s: %d lines on stderr, want one" % (what, len(se.strip().splitlines())))
        check(not os.path.exists(os.path.join(out, "index.html")), "%s: a page was written" % what)
    print("malformed: %d cases" % len(cases))


def noplot(cupat, work, paths):
    # an interpreter for which matplotlib cannot be imported
    wrap = os.path.join(work, "python-without-matplotlib")
    with open(wrap, "w") as f:
        f.write("#!/bin/sh\nexec %s -c 'import runpy, sys; sys.modules[\"matplotlib\"] = None; "
                "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name=\"__main__\")' \"$@\"\n"
                % sys.executable)
    os.chmod(wrap, 0o755)
    out = os.path.join(work, "noplot-page")
    rc, so, se = run(cupat, paths[:1] + ["--out", out, "--python", wrap])
    check(rc == 1, "no matplotlib: exit %d, want 1 (%s)" % (rc, se.strip()))
    check("python3-matplotlib" in se and "matplotlib is not installed" in se, "no matplotlib: message %r" % se.strip())
    check(not os.path.exists(out), "no matplotlib: a page folder was made")


def nopython(cupat, work, paths):
    rc, so, se = run(cupat, paths[:1] + ["--out", os.path.join(work, "x"), "--python", "/nonexistent/python3"])
    check(rc == 1, "no python: exit %d, want 1" % rc)
    check("not found" in se and "python3-matplotlib" in se, "no python: message %r" % se.strip())


def hist(cupat, work, paths):
    files = []
    for i, img in enumerate(paths):
        out = os.path.join(work, "hist-%d.json" % i)
        p = subprocess.run([cupat, "hist", img, "--backend", "cpu", "--json", out], capture_output=True,
                           text=True, timeout=600)
        if p.returncode == 2 and "cJSON" in p.stderr:
            print("SKIP: this build has no cJSON (Debian: libcjson-dev), so cupat hist --json is refused")
            return 77
        if not check(p.returncode == 0, "cupat hist %s exited %d: %s" % (img, p.returncode, p.stderr.strip())):
            return
        with open(out) as f:
            d = json.load(f)
        check("ceilings" not in d and d["tool"] == "cupat hist", "%s: ceilings %r, tool %r" % (out, d.get("ceilings"), d.get("tool")))
        t = d["tables"][0]
        check(t["kind"] == "histogram" and t["lower"] == 0 and t["upper"] == 256 and
              all(len(r["counts"]) == 256 for r in t["rows"]), "%s: not a 256-bin histogram table" % out)
        files.append(out)
    draw(cupat, work, files)


def main():
    cupat, mode, work = sys.argv[1:4]
    paths = [os.path.abspath(p) for p in sys.argv[4:]]
    if mode in ("draw", "hist") and not os.environ.get("CUPAT_PYTHON"):
        print("SKIP: no Python with matplotlib was found at configure time (Debian: python3-matplotlib)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if {"draw": draw, "malformed": malformed, "noplot": noplot, "nopython": nopython, "hist": hist}[mode](
            cupat, work, paths) == 77:
        return 77
    print("%s: %s" % (mode, "FAILED (%d)" % len(FAILS) if FAILS else "passed"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
