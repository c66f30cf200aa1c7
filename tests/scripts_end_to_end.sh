#!/usr/bin/env bash
# The comparison scripts on a tiny sweep: sweep -> plot -> compare (no timing assertions). Every
# dslash bench measures the machine's ceilings first and after each variant, so the runs are few.
set -euo pipefail
dslash=$1
scripts=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3
if ! $py -c "import numpy, matplotlib" 2> /dev/null; then
  echo "skipped: /usr/bin/python3 lacks numpy or matplotlib (bash scripts/install_deps.sh installs them)"
  exit 77
fi
# The cache size from DSLASH_LLC_BYTES: the scripts read what bench writes, whatever the cache, and
# each ceiling round's triad spans 4x it (a VM may report a huge one).
export DSLASH_LLC_BYTES=24M
# Two lattices x two precisions, the three kernels (one dispatch: the scripts treat every variant alike).
$py "$scripts/sweep.py" --dslash "$dslash" --lattices 4x4x4x8 8x4x4x8 --prec single double --dispatch range --iters 2 \
    --out sweep.json --csv sweep.csv 2> progress.txt
grep -q "\[4/4\]" progress.txt || fail "no progress lines"
[ "$(wc -l < sweep.csv)" -eq 13 ] || fail "expected 12 CSV rows, got $(($(wc -l < sweep.csv) - 1))"
MPLBACKEND=Agg $py "$scripts/plot.py" sweep.json --outdir plots > plots.txt
for f in gflops_vs_volume_single.png gflops_vs_volume_double.png variants_8x4x4x8_single.png variants_8x4x4x8_double.png; do
  [ -s "plots/$f" ] || fail "plot $f missing"
  head -c 8 "plots/$f" | grep -q PNG || fail "$f is not a PNG"
done
$py "$scripts/compare.py" sweep.json sweep.json > same.txt || fail "a file compared with itself regressed"
grep -q "12 variants compared, 0 regression" same.txt || fail "compare: $(tail -1 same.txt)"
# A deliberately slower "after" file is flagged and exits 1. Both files are made quiet (spread 0):
# a timing spread above 50% on a busy machine would rightly widen compare's noise past a 2x change.
$py - <<'PY'
import json
d = json.load(open("sweep.json"))
for run in d["runs"]:
    for r in run["results"]:
        r["spread"] = 0
json.dump(d, open("quiet.json", "w"))
for run in d["runs"]:
    for r in run["results"]:
        r["gflops"] *= 0.5
json.dump(d, open("slower.json", "w"))
PY
set +e
$py "$scripts/compare.py" quiet.json slower.json > slower.txt
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "compare did not flag a 2x slowdown (exit $rc)"
grep -q "12 regression" slower.txt || fail "compare: $(tail -1 slower.txt)"
# ab.py: interleaved rounds of one bench under two sides, here one binary and one environment
# (--env-a/--env-b, which each run's JSON reports) a thread count apart by their own arguments
# (--args-a/--args-b), which alone make the sides differ.
$py "$scripts/ab.py" --a "$dslash" --env-a OMP_PROC_BIND=close --env-b OMP_PROC_BIND=close --args-a "--threads 2" --args-b "--threads 1" \
    --rounds 2 --keep keep --out ab.json -- bench --lattice 4x4x4x8 --kernel naive --dispatch range --iters 2 > ab.txt 2> ab.err \
  || fail "ab.py: $(tail -1 ab.err)"
grep -q "B/A" ab.txt || fail "ab.py printed no ratio: $(cat ab.txt)"
$py - <<'PY'
import json
j = json.load(open("ab.json"))
assert [r["side"] for r in j["runs"]] == ["A", "B", "B", "A"], j["runs"]  # the second round starts with B
assert j["sides"]["A"]["args"] == ["--threads", "2"] and j["sides"]["B"]["args"] == ["--threads", "1"], j["sides"]
assert j["sides"]["A"]["env"] == j["sides"]["B"]["env"] == {"OMP_PROC_BIND": "close"}, j["sides"]
s = j["summary"][0]
assert s["A"]["threads"]["median"] == 2 and s["B"]["threads"]["median"] == 1, s
assert abs(s["gflops_ratio_b_over_a"] - s["B"]["gflops"]["median"] / s["A"]["gflops"]["median"]) < 1e-12, s
for k in (1, 2):
    for side, threads in (("A", 2), ("B", 1)):
        meta = json.load(open(f"keep/r{k}_{side}.json"))["meta"]
        assert meta["omp_proc_bind"] == "close" and meta["threads"] == threads, (k, side, meta)
PY
# Bad input: one line, a non-zero exit, no run.
for bad in "--a /nonexistent --env-b X=1 -- bench" "--a $dslash -- bench --lattice 4x4x4x8" "--a $dslash --env-b X=1 -- bench --json x.json" \
    "--a $dslash --env-b X=1 --rounds 0 -- bench" "--a $dslash --env-b X -- bench" "--a $dslash --env-b X=1 -- info" \
    "--a $dslash --args-b=--json=x.json -- bench" "--a $dslash --args-a=--iters=2 --args-b=--iters=2 -- bench"; do
  if $py "$scripts/ab.py" $bad > bad.txt 2> bad.err; then fail "ab.py $bad: accepted"; fi
  [ "$(wc -l < bad.err)" -eq 1 ] && grep -q "^error: " bad.err || fail "ab.py $bad: $(cat bad.err)"
done
echo "scripts end-to-end: all checks passed"
