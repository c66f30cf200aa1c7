#!/usr/bin/env bash
# scripts/scaling.py on a tiny lattice: weak and strong scaling over 1 and 2 oversubscribed ranks,
# one JSON with every point's bench run, the control and exchange-only figures, and a PNG plot. The
# weak run goes without Open MPI's root and oversubscription settings (ctest sets them): the script
# adds --allow-run-as-root as root, and --oversubscribe past the cores (a stand-in mpirun shows that
# and the error line of a failed mpirun: its headline, not the banner's dashes).
set -euo pipefail
dslash=$1
scripts=$2
mpirun=${3:-mpirun}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
py=/usr/bin/python3
if ! command -v "$mpirun" > /dev/null; then
  echo "skipped: no mpirun"
  exit 77
fi
if ! $py -c "import numpy, matplotlib" 2> /dev/null; then
  echo "skipped: /usr/bin/python3 lacks numpy or matplotlib (bash scripts/install_deps.sh installs them)"
  exit 77
fi
bench="--kernel naive --dispatch range --prec double --iters 2 --warmup 1"
env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -u OMPI_MCA_rmaps_base_oversubscribe \
  $py "$scripts/scaling.py" --dslash "$dslash" --mpirun "$mpirun" --mpirun-flags "-x OMP_NUM_THREADS=1" \
    --mode weak --local 4x4x4x4 --ranks 1 2 --bench "$bench" --out weak.json --plot weak.png > weak.txt 2> progress.txt \
  || fail "weak scaling: $(tail -3 progress.txt)"
grep -q "\[2/2\] 2 rank(s), grid 1.1.1.2, lattice 4x4x4x8" progress.txt || fail "progress: $(cat progress.txt)"
if [ "$(id -u)" -eq 0 ] && "$mpirun" --version | grep -q "Open MPI"; then
  [ "$(grep -c "^  mpirun --allow-run-as-root: running as root$" progress.txt)" -eq 2 ] || fail "not said: $(cat progress.txt)"
  $py -c "import json; assert all(' --allow-run-as-root ' in p['command'] for p in json.load(open('weak.json'))['points'])" \
    || fail "--allow-run-as-root is not in the points' commands"
fi
head -c 8 weak.png | grep -q PNG || fail "weak.png is not a PNG"
$py "$scripts/scaling.py" --dslash "$dslash" --mpirun "$mpirun" --mpirun-flags "--oversubscribe -x OMP_NUM_THREADS=1" \
    --mode strong --lattice 4x4x4x8 --grids 1.1.1.1 1.1.2.1 --bench "$bench" --out strong.json > strong.txt 2> progress.txt \
  || fail "strong scaling: $(tail -3 progress.txt)"
$py - <<'PY'
import json
weak, strong = json.load(open("weak.json")), json.load(open("strong.json"))
assert weak["mode"] == "weak" and [p["ranks"] for p in weak["points"]] == [1, 2], weak["points"]
assert [p["lattice"] for p in weak["points"]] == ["4x4x4x4", "4x4x4x8"]
assert [p["grid"] for p in strong["points"]] == ["1.1.1.1", "1.1.2.1"] and {p["lattice"] for p in strong["points"]} == {"4x4x4x8"}
for p in weak["points"] + strong["points"]:
    (row,) = p["figures"]
    assert row["variant"] == "naive range", row
    assert row["gflops_per_rank"] > 0 and row["control_gflops_per_rank"] > 0, row
    assert p["run"]["meta"]["ranks"] == p["ranks"], p["run"]["meta"]
    two = p["ranks"] == 2
    assert (row["exchange_only_GBs"] > 0) == two and (row["halo_GBs"] > 0) == two, row
PY
grep -q "naive range" weak.txt || fail "no table: $(cat weak.txt)"
# Bad input: exit 2, one line (the progress lines, "[1/1] ..." and "  mpirun ...", aside).
bad_input() {
  local what=$1; shift
  set +e
  $py "$scripts/scaling.py" --dslash "$dslash" "$@" > /dev/null 2> err.txt
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] && [ "$(grep -vc '^\[\|^  mpirun ' err.txt)" -eq 1 ] && grep -q "^error: .*$what" err.txt || fail "expected exit 2 and '$what': exit $rc, $(cat err.txt)"
}
bad_input "powers of two" --mpirun "$mpirun" --mode weak --local 4x4x4x4 --ranks 3 --out bad.json
bad_input "'4x4x4' is not four positive extents" --mpirun "$mpirun" --mode weak --local 4x4x4 --ranks 1 --out bad.json
bad_input "--out '/nonexistent/w.json': directory '/nonexistent' does not exist" --mpirun "$mpirun" --mode weak --local 4x4x4x4 --ranks 1 \
  --out /nonexistent/w.json
bad_input "--mpirun 'no-such-mpirun': no such program" --mpirun no-such-mpirun --mode weak --local 4x4x4x4 --ranks 1 --out bad.json
# dslash refusing its bench flags under mpirun (mpirun passes on its exit 2): the line is dslash's.
bad_input "mpirun exited 2: dslash: error: .*avx9000" --mpirun "$mpirun" --mode weak --local 4x4x4x4 --ranks 1 --bench "--simd avx9000" \
  --out bad.json

# A stand-in Open MPI mpirun that records its arguments and fails as Open MPI does as root: more
# ranks than cores get --oversubscribe (once, given or added), root gets --allow-run-as-root, and
# the error is exit 3 with the banner's headline.
cat > fake_mpirun <<'SH'
#!/usr/bin/env bash
if [ "$1" = --version ]; then echo "mpirun (Open MPI) 4.1.4"; exit 0; fi
printf '%s\n' "$@" > mpirun_args.txt
cat >&2 <<'TXT'
--------------------------------------------------------------------------
mpirun has detected an attempt to run as root.

Running as root is *strongly* discouraged as any mistake (e.g., in
defining TMPDIR) or bug can result in catastrophic damage to the OS
--------------------------------------------------------------------------
TXT
exit 1
SH
chmod +x fake_mpirun
many=$($py -c "import os; print(len(os.sched_getaffinity(0)) + 1)")  # not nproc: it follows OMP_NUM_THREADS
for flags in "" "--oversubscribe"; do
  set +e
  env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -u OMPI_MCA_rmaps_base_oversubscribe \
    $py "$scripts/scaling.py" --dslash "$dslash" --mpirun ./fake_mpirun --mpirun-flags "$flags" --mode strong --lattice 4x4x4x4 \
      --grids "1.1.1.$many" --out bad.json > /dev/null 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 3 ] || fail "a failed mpirun: exit $rc, $(cat err.txt)"
  grep -q "^error: mpirun exited 1: mpirun has detected an attempt to run as root\. (command: " err.txt || fail "not the headline: $(cat err.txt)"
  if grep -q -- "-----" err.txt; then fail "the banner's dashes: $(cat err.txt)"; fi
  [ "$(grep -cx -- "--oversubscribe" mpirun_args.txt)" -eq 1 ] || fail "$many ranks, flags '$flags': $(cat mpirun_args.txt)"
  if [ "$(id -u)" -eq 0 ]; then
    grep -qx -- "--allow-run-as-root" mpirun_args.txt || fail "as root without --allow-run-as-root: $(cat mpirun_args.txt)"
  fi
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "scaling.py left $(ls "$TMPDIR") behind"
echo "scaling end-to-end: all checks passed"
