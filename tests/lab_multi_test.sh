#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# lab_multi_test.sh BACKEND JSON PYTHON -- MPIRUN-COMMAND...
# Runs `cupat lab multi --quick` under mpirun (the command after --, which
# writes its JSON to JSON) and checks what it printed and wrote: exit 0, the
# checks' lines (all-reduce sums against the host's, the stencil's slabs
# against the one-rank grid, the sort), and the JSON's experiments and rows.
# BACKEND cuda without a GPU: exit 77 (skipped). PYTHON empty (or absent here
# and no python3 on the PATH): the JSON is checked by grep alone.
set -u
backend=$1 json=$2 python=$3
shift 4
rm -f "$json"
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$backend" = cuda ] && printf '%s\n' "$out" | grep -q "needs a GPU"; then
  # the lab's own reason (no device, a driver mismatch, ...), not a guess
  echo "SKIP: $(printf '%s\n' "$out" | grep -m1 "needs a GPU" | sed 's/^[^:]*: //')"
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit $rc"
for line in "^all-reduce check: PASS" "^stencil check .*: PASS" "^sort: PASS" "^multi lab: every check OK" \
            "^## 5. PREDICTIONS" "^| 64 |"; do
  printf '%s\n' "$out" | grep -q -- "$line" || fail "no line matching '$line'"
done
[ -s "$json" ] || fail "no JSON written to $json"
# the interpreter CMake found may not exist where the build travelled to
# (a build carried to a GPU machine): the one on the PATH, else grep alone
if [ -n "$python" ] && [ ! -x "$python" ]; then python=$(command -v python3 || true); fi
if [ -z "$python" ]; then
  grep -q '"lab": "multi"' "$json" || fail "JSON without \"lab\": \"multi\""
  exit 0
fi
"$python" - "$json" "$backend" <<'PY' || fail "JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
cpu = sys.argv[2] == "cpu"
e = d["experiments"]
assert d["lab"] == "multi", d["lab"]
for k in ["setup", "link", "allreduce", "reduce", "stencil", "stencil_check", "sort", "model_inputs",
          "model_stencil_weak", "model_stencil_strong", "model_allreduce"]:
    assert k in e, "no experiment " + k
setup = e["setup"][0]
assert setup["ranks"] == 2, setup
if cpu:
    assert setup["transport"] == "mpi" and setup["backend"] == "cpu", setup
    assert "CPU backend" in e["link"][0]["skipped"], e["link"]
ar = e["allreduce"]
assert len(ar) >= 3 and ar[0]["bytes"] == 4096, ar
for r in ar:
    assert r["check"] == "ok" and r["cupat_bad"] == 0 and r["cupat_ms"] > 0, r
    if cpu:
        assert r["baseline"] == "MPI_Allreduce" and r["baseline_bad"] == 0, r
red = e["reduce"][0]
assert red["check"] == "ok" and abs(red["result"] - red["exact"]) <= 1e-6 * max(1.0, abs(red["exact"])), red
runs = {r["run"]: r for r in e["stencil"]}
assert set(runs) == {"run", "steps", "weak1", "weakp", "strong1", "strongp"}, runs
assert all(r["ms_per_step"] > 0 for r in runs.values()), runs
assert runs["weakp"]["ranks"] == 2 and runs["weakp"]["nz"] == 2 * (runs["weak1"]["nz"] - 2) + 2, runs
assert e["stencil_check"][0]["check"] == "PASS", e["stencil_check"]
assert [r["check"] for r in e["sort"]] == ["PASS", "PASS"], e["sort"]
# random keys, 32 samples a rank: no rank gets more than 1.5x its share
assert e["sort"][1]["out_max"] <= 1.5 * e["sort"][1]["keys"] / setup["ranks"], e["sort"]
assert [r["P"] for r in e["model_stencil_weak"]] == [2, 8, 64], e["model_stencil_weak"]
for r in e["model_stencil_weak"] + e["model_stencil_strong"]:
    assert 0 < r["efficiency"] <= 1.0 + 1e-9, r
names = [r["input"] for r in e["model_inputs"]]
assert any("ASSUMED" in r["from"] for r in e["model_inputs"]), names
print("JSON ok:", len(ar), "all-reduce rows,", len(e["stencil"]), "stencil rows")
PY
exit 0
