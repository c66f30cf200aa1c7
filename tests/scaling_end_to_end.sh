#!/usr/bin/env bash
# scripts/scaling.py on a tiny lattice: weak and strong scaling over 1 and 2 oversubscribed ranks,
# one JSON with every point's bench run, the control and exchange-only figures, and a PNG plot.
set -euo pipefail
dslash=$1
scripts=$2
mpirun=${3:-mpirun}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
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
$py "$scripts/scaling.py" --dslash "$dslash" --mpirun "$mpirun" --mpirun-flags "--oversubscribe -x OMP_NUM_THREADS=1" \
    --mode weak --local 4x4x4x4 --ranks 1 2 --bench "$bench" --out weak.json --plot weak.png > weak.txt 2> progress.txt \
  || fail "weak scaling: $(tail -3 progress.txt)"
grep -q "\[2/2\] 2 rank(s), grid 1.1.1.2, lattice 4x4x4x8" progress.txt || fail "progress: $(cat progress.txt)"
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
# A bad rank count stops the driver with the bench's own error.
if $py "$scripts/scaling.py" --dslash "$dslash" --mpirun "$mpirun" --mode weak --local 4x4x4x4 --ranks 3 --out bad.json 2> err.txt; then
  fail "3 ranks were accepted"
fi
grep -q "powers of two" err.txt || fail "bad rank count: $(cat err.txt)"
echo "scaling end-to-end: all checks passed"
