#!/usr/bin/env bash
# The comparison scripts on a tiny sweep: sweep -> plot -> compare (no timing assertions). Every
# dslash bench measures the machine's ceilings first and after each variant, so the runs are few.
# Then the exit codes (scripts/exitcodes.py: 1 regression, 2 bad input in one line, 3 a failed run)
# and that no script leaves a temporary file behind, Ctrl-C and SIGTERM included: every script's
# temporaries go to $TMPDIR, a folder of this test's own that must be empty at the end.
set -euo pipefail
dslash=$1
scripts=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
py=/usr/bin/python3
# "$@" must exit 2 with one line on stderr, "error: ...", and no traceback (sweep.py's progress
# lines, "[1/4] ...", aside).
expect_bad_input() {
  local what=$1; shift
  set +e
  "$@" > bad.txt 2> bad.err
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2: $(cat bad.err)"
  [ "$(grep -vc '^\[' bad.err)" -eq 1 ] && grep -q "^error: " bad.err || fail "$what: not one error line: $(cat bad.err)"
}
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
# Bad input: exit 2, one line, no run.
for bad in "--a /nonexistent --env-b X=1 -- bench" "--a $dslash -- bench --lattice 4x4x4x8" "--a $dslash --env-b X=1 -- bench --json x.json" \
    "--a $dslash --env-b X=1 --rounds 0 -- bench" "--a $dslash --env-b X -- bench" "--a $dslash --env-b X=1 -- info" \
    "--a $dslash --args-b=--json=x.json -- bench" "--a $dslash --args-a=--iters=2 --args-b=--iters=2 -- bench" \
    "--a $dslash --env-b X=1 --out /nonexistent/ab.json -- bench" "--a $dslash --env-b X=1 --rounds two -- bench"; do
  expect_bad_input "ab.py $bad" $py "$scripts/ab.py" $bad
done

# The exit codes: 2 and one line "error: ...", never a traceback, for a file that is missing, not
# JSON, or JSON of another kind (a solve's, a scaling.py file), for each script that reads results.
"$dslash" solve --random --lattice 4x4x4x4 --seed 2 --point-source 0.0.0.0 --mass 0.2 --out x.npy --json solve.json > /dev/null || fail "dslash solve"
echo '{"mode": "weak", "points": []}' > scaling.json
echo 'not json' > text.json
$py - <<'PY'
import json
d = json.load(open("quiet.json"))
for run in d["runs"]:
    for r in run["results"]:
        r["lattice"] = [2, 2, 2, 2]
json.dump(d, open("elsewhere.json", "w"))  # no variant in common with quiet.json
del d["runs"][1]["results"][2]["gflops"]
json.dump(d, open("truncated.json", "w"))
PY
for input in missing.json solve.json scaling.json text.json truncated.json .; do
  expect_bad_input "compare.py $input" $py "$scripts/compare.py" quiet.json "$input"
  expect_bad_input "results.py $input" $py "$scripts/results.py" "$input"
  expect_bad_input "plot.py $input" $py "$scripts/plot.py" "$input" --outdir plots_bad
done
grep -q "'solve.json' is not a .dslash bench --json. file or a sweep.py file: .*(it is a .dslash solve --json. file)" \
  <($py "$scripts/compare.py" quiet.json solve.json 2>&1) || fail "compare.py does not say solve.json is a solve's"
grep -q "'truncated.json' is not .*: run 2, result 3 has no 'gflops'" <($py "$scripts/results.py" truncated.json 2>&1) \
  || fail "results.py does not name the result without gflops"
expect_bad_input "compare.py, no variant in common" $py "$scripts/compare.py" quiet.json elsewhere.json
expect_bad_input "compare.py --noise -1" $py "$scripts/compare.py" quiet.json quiet.json --noise -1
expect_bad_input "compare.py with one file" $py "$scripts/compare.py" quiet.json
expect_bad_input "plot.py --threads 99" $py "$scripts/plot.py" quiet.json --threads 99
expect_bad_input "sweep.py --out /nonexistent" $py "$scripts/sweep.py" --dslash "$dslash" --out /nonexistent/s.json
expect_bad_input "sweep.py --csv into a directory" $py "$scripts/sweep.py" --dslash "$dslash" --out s.json --csv plots
expect_bad_input "sweep.py --dslash /nonexistent" $py "$scripts/sweep.py" --dslash /nonexistent --out s.json
# Flags dslash bench refuses (its exit 2) are bad input too, and the line is dslash's own.
expect_bad_input "sweep.py --extra '--simd avx9000'" $py "$scripts/sweep.py" --dslash "$dslash" --lattices 4x4x4x8 --prec single \
  --extra "--simd avx9000" --out s.json
grep -q "^error: dslash bench exited 2: dslash: error: .*avx9000" bad.err || fail "sweep.py did not pass on dslash's error: $(cat bad.err)"
# results.py: a real --help, and the rows of a file it reads.
$py "$scripts/results.py" --help > help.txt || fail "results.py --help failed"
grep -q "^usage: results.py" help.txt && grep -q "^exit status:" help.txt || fail "results.py --help: $(cat help.txt)"
$py "$scripts/results.py" sweep.json > rows.txt || fail "results.py sweep.json failed"
[ "$(grep -c "GFLOP/s" rows.txt)" -eq 12 ] || fail "results.py listed $(grep -c "GFLOP/s" rows.txt) rows, expected 12: $(cat rows.txt)"
for s in compare results plot sweep scaling ab; do
  $py "$scripts/$s.py" --help > help.txt || fail "$s.py --help failed"
  grep -q "^  2  bad input" help.txt || fail "$s.py --help does not give the exit codes"
done

# Failed runs, through stand-ins for dslash: ab.py and sweep.py exit 3 (2 where dslash refused its
# flags) with dslash's own error line; ab.py without --keep removes its run files, however it ends.
cp keep/r1_A.json canned.json
cat > fake_ok <<'SH'
#!/usr/bin/env bash
cp canned.json "${@: -1}"
SH
cat > fake_fails <<'SH'
#!/usr/bin/env bash
echo "some progress" >&2
echo "dslash: error: the stand-in failed" >&2
echo "------" >&2
exit 1
SH
cat > fake_refuses <<'SH'
#!/usr/bin/env bash
echo "dslash: error: --iters 0: too small" >&2
exit 2
SH
cat > fake_sleeps <<'SH'
#!/usr/bin/env bash
echo $$ > sleeper.pid
exec sleep 60
SH
chmod +x fake_ok fake_fails fake_refuses fake_sleeps
ab() { $py "$scripts/ab.py" --a "$1" --env-b X=1 --rounds 2 "${@:2}" -- bench --lattice 4x4x4x8; }
ab ./fake_ok --out fake_ab.json > ab.txt 2> ab.err || fail "ab.py with the stand-in: $(cat ab.err)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "ab.py left $(ls "$TMPDIR") behind"
set +e
ab ./fake_fails > /dev/null 2> ab.err; rc=$?
set -e
[ "$rc" -eq 3 ] && [ "$(wc -l < ab.err)" -eq 1 ] || fail "a failed run: exit $rc, $(cat ab.err)"
grep -q "^error: side A exited 1: dslash: error: the stand-in failed (command: " ab.err || fail "a failed run: $(cat ab.err)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "a failed ab.py left $(ls "$TMPDIR") behind"
expect_bad_input "ab.py, dslash refuses its flags" ab ./fake_refuses
set +e
$py "$scripts/sweep.py" --dslash ./fake_fails --lattices 4x4x4x8 --prec single --out s.json 2> sweep.err; rc=$?
set -e
[ "$rc" -eq 3 ] && grep -q "dslash: error: the stand-in failed" sweep.err || fail "sweep.py, a failed run: exit $rc, $(cat sweep.err)"
# Ctrl-C (SIGINT, which a background job ignores unless reset: the python wrapper resets it) and
# SIGTERM while a run is in progress: the run is stopped, the files removed, exit 128 + the signal.
for sig in INT TERM; do
  rm -f sleeper.pid
  $py -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, [sys.executable] + sys.argv[1:])' \
    "$scripts/ab.py" --a ./fake_sleeps --env-b X=1 -- bench > /dev/null 2> ab.err &
  pid=$!
  for _ in $(seq 100); do [ -s sleeper.pid ] && break; sleep 0.1; done
  [ -s sleeper.pid ] || fail "the stand-in never started"
  [ -n "$(ls -A "$TMPDIR")" ] || fail "ab.py made no temporary directory"
  kill -s "$sig" "$pid"
  set +e
  wait "$pid"; rc=$?
  set -e
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] || fail "ab.py on SIG$sig exited $rc, expected $want: $(cat ab.err)"
  [ -z "$(ls -A "$TMPDIR")" ] || fail "ab.py on SIG$sig left $(ls "$TMPDIR") behind"
  if kill -0 "$(cat sleeper.pid)" 2> /dev/null; then fail "ab.py on SIG$sig left its run going"; fi
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "the scripts left $(ls "$TMPDIR") behind"
echo "scripts end-to-end: all checks passed"
