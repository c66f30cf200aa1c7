#!/usr/bin/env bash
# The comparison scripts on a tiny sweep: sweep -> plot -> compare (no timing assertions).
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
$py "$scripts/sweep.py" --dslash "$dslash" --lattices 4x4x4x8 8x4x4x8 --prec single double --iters 2 \
    --out sweep.json --csv sweep.csv 2> progress.txt
grep -q "\[4/4\]" progress.txt || fail "no progress lines"
[ "$(wc -l < sweep.csv)" -eq 37 ] || fail "expected 36 CSV rows, got $(($(wc -l < sweep.csv) - 1))"
MPLBACKEND=Agg $py "$scripts/plot.py" sweep.json --outdir plots > plots.txt
for f in gflops_vs_volume_single.png gflops_vs_volume_double.png variants_8x4x4x8_single.png variants_8x4x4x8_double.png; do
  [ -s "plots/$f" ] || fail "plot $f missing"
  head -c 8 "plots/$f" | grep -q PNG || fail "$f is not a PNG"
done
$py "$scripts/compare.py" sweep.json sweep.json > same.txt || fail "a file compared with itself regressed"
grep -q "36 variants compared, 0 regression" same.txt || fail "compare: $(tail -1 same.txt)"
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
grep -q "36 regression" slower.txt || fail "compare: $(tail -1 slower.txt)"
# ab.py: interleaved rounds of one bench under two sides (here one binary, a thread count apart).
$py "$scripts/ab.py" --a "$dslash" --env-a OMP_NUM_THREADS=2 --env-b OMP_NUM_THREADS=1 --rounds 2 --out ab.json \
    -- bench --lattice 4x4x4x8 --kernel naive --dispatch range --iters 2 > ab.txt 2> ab.err || fail "ab.py: $(tail -1 ab.err)"
grep -q "B/A" ab.txt || fail "ab.py printed no ratio: $(cat ab.txt)"
$py - <<'PY'
import json
j = json.load(open("ab.json"))
assert [r["side"] for r in j["runs"]] == ["A", "B", "B", "A"], j["runs"]  # the second round starts with B
s = j["summary"][0]
assert s["A"]["threads"]["median"] == 2 and s["B"]["threads"]["median"] == 1, s
assert abs(s["gflops_ratio_b_over_a"] - s["B"]["gflops"]["median"] / s["A"]["gflops"]["median"]) < 1e-12, s
PY
# One binary, two of its own options (--args-a/--args-b): each side's runs carry its own.
$py "$scripts/ab.py" --a "$dslash" --args-a "--prec double" --args-b "--prec single" --rounds 1 --out ab_args.json \
    -- bench --lattice 4x4x4x8 --kernel naive --dispatch range --iters 2 > ab_args.txt 2> ab_args.err || fail "ab.py --args-a: $(tail -1 ab_args.err)"
$py - <<'PY'
import json
j = json.load(open("ab_args.json"))
assert j["sides"]["A"]["args"] == ["--prec", "double"] and j["sides"]["B"]["args"] == ["--prec", "single"], j["sides"]
precisions = {r["side"]: r["variant"][2] for r in j["runs"]}
assert precisions == {"A": "double", "B": "single"}, precisions
PY
# Bad input: one line, a non-zero exit, no run.
for bad in "--a /nonexistent --env-b X=1 -- bench" "--a $dslash -- bench --lattice 4x4x4x8" "--a $dslash --env-b X=1 -- bench --json x.json" \
    "--a $dslash --env-b X=1 --rounds 0 -- bench" "--a $dslash --env-b X -- bench" "--a $dslash --env-b X=1 -- info" \
    "--a $dslash --args-b=--json=x.json -- bench" "--a $dslash --args-a=--iters=2 --args-b=--iters=2 -- bench"; do
  if $py "$scripts/ab.py" $bad > bad.txt 2> bad.err; then fail "ab.py $bad: accepted"; fi
  [ "$(wc -l < bad.err)" -eq 1 ] && grep -q "^error: " bad.err || fail "ab.py $bad: $(cat bad.err)"
done
echo "scripts end-to-end: all checks passed"
