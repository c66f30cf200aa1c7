#!/usr/bin/env bash
# dslash under mpirun as a user drives it: apply over 4 ranks writes the file one process writes
# (to rounding: the boundary sites add their hops in another order), bench --check over a grid
# passes and prints once, and bad grids fail on every rank with a clear error and no hang.
set -euo pipefail
dslash=$1
mpirun=$2
npy_close=$(cd "$(dirname "$0")" && pwd)/npy_close.py
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Every bench measures the machine's ceilings first and after each variant, its triad over 4x the
# cache, which a VM may report huge: no check here depends on the cache, so DSLASH_LLC_BYTES sets it.
export DSLASH_LLC_BYTES=24M

"$dslash" gauge --lattice 8x4x8x8 --random --seed 11 --out U.nersc > /dev/null
"$dslash" spinor --lattice 8x4x8x8 --seed 3 --nrhs 8 --out psi.npy > /dev/null
"$dslash" apply --gauge U.nersc --in psi.npy --out one.npy --kernel naive --parity odd --dagger > /dev/null
"$mpirun" -np 4 "$dslash" apply --gauge U.nersc --in psi.npy --out four.npy --kernel vnode --parity odd --dagger --mpi 2.1.1.2 > out.txt
grep -q "grid 2.1.1.2 (4 ranks): global 8x4x8x8, local 4x4x8x4" out.txt || fail "apply did not report the grid: $(cat out.txt)"
[ "$(wc -l < out.txt)" -eq 1 ] || fail "apply printed from more than one rank: $(cat out.txt)"
"$mpirun" -np 2 "$dslash" apply --gauge U.nersc --in psi.npy --out two.npy --kernel mrhs --simd scalar --parity odd --dagger --mpi 1.1.2.1 \
  --comms-overlap off > /dev/null
"$dslash" apply --gauge U.nersc --in psi.npy --out ref.npy --parity odd --dagger > /dev/null
# Compressed links in the interior (the face kernels keep theirs whole): the same answer.
"$mpirun" -np 4 "$dslash" apply --gauge U.nersc --in psi.npy --out four_r12.npy --kernel vnode --parity odd --dagger --mpi 2.1.1.2 --compress 12 > /dev/null
# One process with --mpi 1.1.1.1 (MPI singleton) is the plain run.
"$dslash" apply --gauge U.nersc --in psi.npy --out single.npy --kernel naive --parity odd --dagger --mpi 1.1.1.1 > /dev/null
cmp -s one.npy single.npy || fail "--mpi 1.1.1.1 differs from the plain run"
/usr/bin/python3 "$npy_close" ref.npy 1e-12 one.npy four.npy two.npy four_r12.npy || fail "a decomposed apply differs from the reference"

# solve over a grid: the x one process writes (to the tolerance: the ranks' sums round in another
# order), the grid in the report and the JSON, exit 1 without convergence, exit 2 on a bad grid.
"$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel mrhs --out x_one.npy > /dev/null
"$mpirun" -np 4 "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel mrhs --mpi 2.1.1.2 --out x_four.npy \
  --json solve.json > solve.txt || fail "solve over 4 ranks: $(cat solve.txt)"
grep -q "grid 2.1.1.2 (4 ranks)" solve.txt || fail "solve did not report the grid: $(cat solve.txt)"
[ "$(grep -c '^converged' solve.txt)" -eq 1 ] || fail "solve reported from more than one rank: $(cat solve.txt)"
grep -q '"ranks": 4' solve.json || fail "solve JSON lacks the ranks"
# On one node a solve sends its halo through the shared window; with --cpu-halo inputs every hop
# reads it in place from the neighbours' vectors.
grep -q "^halo: shared, 0 of the" solve.txt || fail "solve's default halo is not the shared window: $(grep '^halo' solve.txt)"
grep -q '"halo_transport": "shared"' solve.json || fail "solve JSON lacks the halo transport"
"$mpirun" -np 4 "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel mrhs --mpi 2.1.1.2 --cpu-halo inputs --out x_in_place.npy \
  > solve_in_place.txt || fail "solve --cpu-halo inputs over 4 ranks: $(cat solve_in_place.txt)"
grep -Eq "^halo: inputs, ([0-9]+) of the \1 hops" solve_in_place.txt || fail "solve's hops did not all read their halo in place: $(grep '^halo' solve_in_place.txt)"
cmp -s x_four.npy x_in_place.npy || fail "solve --cpu-halo inputs is not the shared window's bits"
/usr/bin/python3 "$npy_close" x_one.npy 1e-8 x_four.npy || fail "solve over 4 ranks differs from one process"
"$mpirun" -np 2 "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel vnode --prec mixed --solver bicgstab --mpi 1.1.2.1 --out x_two.npy > /dev/null \
  || fail "solve --kernel vnode --solver bicgstab over 2 ranks"
/usr/bin/python3 "$npy_close" x_one.npy 1e-8 x_two.npy || fail "mixed vnode BiCGStab over 2 ranks differs from one process"
# A block BiCGStab over the ranks: each right-hand side's sums added over them through the host.
"$mpirun" -np 2 "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel mrhs --prec mixed --solver bicgstab --mpi 1.2.1.1 --out x_block.npy > /dev/null \
  || fail "solve --kernel mrhs --solver bicgstab over 2 ranks"
/usr/bin/python3 "$npy_close" x_one.npy 1e-8 x_block.npy || fail "mixed block BiCGStab over 2 ranks differs from one process"
# A double-half block CG over the ranks: the half kernels take each rank's hops, the halo's travel in single.
"$mpirun" -np 2 "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel mrhs --prec mixed --sloppy half --mpi 1.1.2.1 \
  --out x_half.npy > solve_half.txt || fail "solve --sloppy half over 2 ranks: $(cat solve_half.txt)"
grep -q "(double-half)" solve_half.txt || fail "solve --sloppy half over 2 ranks: not double-half: $(head -1 solve_half.txt)"
/usr/bin/python3 "$npy_close" x_one.npy 1e-8 x_half.npy || fail "double-half block CG over 2 ranks differs from one process"
set +e
"$mpirun" -np 2 "$dslash" solve --gauge U.nersc --in psi.npy --mass -0.2 --maxiter 2 --mpi 1.1.1.2 --out x_no.npy > /dev/null 2> noconv.err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "solve over 2 ranks without convergence: exit $rc, expected 1"
[ "$(grep -c "did not converge" noconv.err)" -eq 1 ] || fail "non-convergence not reported once: $(cat noconv.err)"
[ ! -e x_no.npy ] || fail "a solve that did not converge wrote x"

# bench over a grid: the reference check passes, one table, the MPI columns and JSON fields. Range
# dispatch only: every kernel x dispatch over MPI is HaloDslashTest.AgreesWithTheSingleProcessReference.
"$mpirun" -np 4 "$dslash" bench --lattice 8x8x8x8 --mpi 1.2.1.2 --prec double --dispatch range --iters 2 --warmup 1 --check --json b.json \
  > bench.txt 2> bench.err || fail "bench --check over MPI failed: $(cat bench.err)"
grep -q "check passed: 3 variant(s)" bench.err || fail "bench --check: $(cat bench.err)"
[ "$(grep -c '^kernel' bench.txt)" -eq 1 ] || fail "bench printed more than one table"
grep -q "GF/s rank" bench.txt || fail "no per-rank rate column"
for key in gflops_per_rank rank_gflops comm_s compute_s stages control overhead halo_bytes_per_rank halo_GBs exchange_only_GBs \
           halo_percent_of_exchange_only halo_messages_per_rank local_lattice rotating_sets bandwidth_samples_GBs fma_samples_GFLOPs; do
  grep -q "\"$key\"" b.json || fail "bench JSON lacks $key"
done
# The same report as one process writes: every result carries the common fields, meta the timing rule.
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 - <<'PY'
import json
j = json.load(open("b.json"))
assert j["meta"]["headline"] == "the best of 2 timed calls; min/median/max over all 2, after 1 untimed warm-up calls, each call timed to the slowest rank", j["meta"]["headline"]
for k in ("llc_bytes", "llc_source", "fits_in_llc", "footprint_bytes", "ranks", "grid", "threads"):
    assert k in j["meta"], k
for r in j["results"]:
    for k in ("layout", "lanes", "tile_source", "team_size", "sites_per_team", "spread", "times_s", "fma_peak_gflops", "gflops_per_rank", "comm_s"):
        assert k in r, k
    assert r["time_min_s"] == min(r["times_s"]) and len(r["times_s"]) == 2, r["times_s"]
    assert abs(r["percent_of_roofline"] - 100 * r["gflops"] / r["roofline_gflops"]) < 1e-6, r
    # The stages (min <= median <= max over ranks), the no-halo control and the exchange-only ceiling.
    names = [s["stage"] for s in r["stages"]]
    # The shared halo is in before the interior, whose kernel then adds its hops: no complete stage.
    assert names == ["project", "post", "interior", "progress", "wait", "call", "transfer"], names
    assert r["halo_complete"] == "kernel", r
    for s in r["stages"]:
        assert 0 <= s["min_s"] <= s["median_s"] <= s["max_s"], s
    c = r["control"]
    assert c["time_min_s"] > 0 and len(c["times_s"]) == 2 and c["gflops_per_rank"] > 0, c
    assert c["interleaved"] is True and len(c["times_s"]) == len(r["times_s"]), c  # call for call beside the decomposed ones
    assert abs(c["overhead"] - (r["time_min_s"] / c["time_min_s"] - 1)) < 1e-9, c
    assert r["exchange_only_GBs"] > 0 and r["halo_GBs"] > 0, r
    assert abs(r["halo_percent_of_exchange_only"] - 100 * r["halo_GBs"] / r["exchange_only_GBs"]) < 1e-6, r
    assert r["halo_messages_per_rank"] == 2, r  # y and t have extent 2: one peer each, both faces in one message
    assert r["halo_transport"] == "inputs", r  # the ranks share a node: each reads its halo straight from the neighbours' inputs
    assert j["meta"]["comms_overlap"] == "chunks" and j["meta"]["halo_messages"] == "per-peer", j["meta"]
PY
fi
grep -q "halo at [0-9]*% of what a shared-memory window moves here" bench.txt || fail "no halo-vs-ceiling line: $(cat bench.txt)"
grep -q "overhead" bench.txt || fail "no overhead column"

# Every progress strategy and CPU halo transport, one message per face: --check passes, the halo's hops
# are added by the face kernels or, where the halo is in first, by the interior kernel, and --verbose
# breaks each call into stages. The other strategy x transport pairs against the reference, and the
# completion each gets: HaloDslashTest.AgreesWithTheSingleProcessReference, HaloReuse.PersistentRequestsServeManyCallsWithTheSameBits.
for case in off/mpi/faces chunks/shared/auto chunks/mpi/auto thread/inputs/auto; do
  IFS=/ read -r overlap how complete <<< "$case"
  "$mpirun" -np 2 "$dslash" bench --lattice 8x8x8x8 --mpi 2.1.1.1 --kernel vnode --dispatch range --prec single --iters 3 --warmup 1 --check \
    --comms-overlap "$overlap" --halo-messages per-face --halo-chunks 3 --cpu-halo "$how" --halo-complete "$complete" --verbose \
    > verbose.txt 2> verbose.err || fail "bench --comms-overlap $overlap: $(cat verbose.err)"
  grep -q "check passed: 1 variant(s)" verbose.err || fail "--comms-overlap $overlap: $(cat verbose.err)"
  for stage in project post interior progress wait call transfer "control (no halo"; do
    [ "$(grep -c "^#   $stage" verbose.txt)" -eq 1 ] || fail "--verbose lacks '$stage': $(cat verbose.txt)"
  done
  # The interior kernel adds the hops where the halo is in before it and that is not declined.
  in_kernel=0
  [ "$complete" = auto ] && { [ "$how" != mpi ] || [ "$overlap" = off ]; } && in_kernel=1
  [ "$(grep -c "^#   complete x" verbose.txt)" -eq $(( 1 - in_kernel )) ] || fail "$case: complete stages: $(cat verbose.txt)"
  [ "$(grep -c "^#   interior .*the halo's hops too" verbose.txt)" -eq $in_kernel ] || fail "$case: interior note: $(cat verbose.txt)"
  grep -q "comms overlap $overlap, halo messages per-face" verbose.txt || fail "header: $(head -12 verbose.txt)"
  grep -qF ", 2 message(s) each way)" verbose.txt || fail "per-face: not one message per face"
  [ "$how" != mpi ] && what="a shared-memory window" || what=MPI
  grep -q "halo at [0-9]*% of what $what moves here" verbose.txt || fail "--cpu-halo $how: $(grep 'halo at' verbose.txt)"
done
# Halo bytes per rank (naive, the first result): 12 reals x 8 bytes x 128 face sites (1024 local
# sites / 4 / 2) x 2 faces x 2 split directions.
grep -q '"halo_bytes_per_rank": 49152,' b.json || fail "halo bytes are not the projected half spinors: $(grep halo_bytes b.json | head -2)"

# Errors: non-zero exit, the reason printed once (by rank 0), and no hang (ctest's timeout). After a
# non-zero exit Open MPI waits a grace period before it ends the job: the cases run side by side, and
# judge_mpi_errors waits for them all and judges each.
err_what=() err_pattern=()
expect_mpi_error() {
  local n=${#err_pattern[@]}
  err_what+=("'${*:3}' on $1 ranks") err_pattern+=("$2")
  ( set +e; "$mpirun" -np "$1" "$dslash" "${@:3}" > /dev/null 2> "err.$n.txt"; echo $? > "rc.$n" ) &
}
judge_mpi_errors() {
  wait
  for n in "${!err_pattern[@]}"; do
    [ "$(cat "rc.$n")" -eq 2 ] || fail "${err_what[$n]}: exit $(cat "rc.$n"), expected 2"
    [ "$(grep -c "${err_pattern[$n]}" "err.$n.txt")" -eq 1 ] || fail "${err_what[$n]}: expected '${err_pattern[$n]}' once, got: $(cat "err.$n.txt")"
  done
  err_what=() err_pattern=()
}
expect_mpi_error 2 "is a grid of 3 ranks, but 2 were started" bench --lattice 8x8x8x8 --mpi 1.1.1.3 --iters 1
# Grids that do not divide the lattice or leave an odd local extent, and 16 lanes that cannot fold the
# local lattice, fail alike on every rank: ProcessGridErrors.EveryRankThrowsTheSameError.
expect_mpi_error 2 "say how they split the lattice with --mpi" bench --lattice 8x8x8x8 --iters 1
expect_mpi_error 4 "is a grid of 2 ranks, but 4 were started" apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --mpi 1.1.1.2
expect_mpi_error 2 "verbose requires --mpi" bench --lattice 8x8x8x8 --iters 1 --verbose
expect_mpi_error 2 "prec half runs in one process; over MPI ranks half precision is a solve's" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --prec half
expect_mpi_error 2 "comms-overlap: sometimes not in {on,off,chunks,thread}" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --comms-overlap sometimes
# The launch-shape options are checked as in one process, not ignored.
expect_mpi_error 2 "error: --tile applies to --dispatch mdrange$" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --dispatch range --tile 2.2.2.2
expect_mpi_error 2 "error: --team-size applies to --dispatch team$" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --dispatch range --team-size 2
expect_mpi_error 2 "halo-chunks 0: too small" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --halo-chunks 0
expect_mpi_error 2 "expected four rank counts" bench --mpi 1.2 --iters 1
# Links the compression cannot store: rank 0 reads the file and refuses it for every rank.
"$dslash" gauge --lattice 8x4x8x8 --unit --out unit.nersc > /dev/null
expect_mpi_error 2 "does not survive the 8-real parametrisation" apply --gauge unit.nersc --in psi.npy --out x.npy --kernel naive --mpi 1.1.1.2 --compress 8
# A missing gauge file is every rank's error: DistributedNersc.ReadScatterGatherWriteIsExact.
# Output paths: rank 0 checks them before any work, and every rank stops.
expect_mpi_error 2 "directory 'missing' does not exist" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --json missing/b.json
expect_mpi_error 2 "'.': it is a directory" apply --gauge U.nersc --in psi.npy --out . --kernel naive --mpi 1.1.1.2
expect_mpi_error 2 "gpu-per-rank applies to --backend cuda" apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --mpi 1.1.1.2 --gpu-per-rank
expect_mpi_error 2 "gpu-halo applies to --backend cuda" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --gpu-halo peer
expect_mpi_error 2 "cpu-halo: fast not in {auto,mpi,shared,inputs}" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --cpu-halo fast
expect_mpi_error 2 "halo-complete: later not in {auto,faces}" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --halo-complete later
expect_mpi_error 2 "gpu-halo: nvlink not in {auto,peer,staged}" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --gpu-halo nvlink
expect_mpi_error 2 "halo-messages: many not in {per-peer,per-face}" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --halo-messages many
expect_mpi_error 2 "error: --tile '1.2.3': expected four sizes a.b.c.d" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --iters 1 --dispatch mdrange --tile 1.2.3
expect_mpi_error 2 "cpu-halo: fast not in {auto,mpi,shared,inputs}" solve --gauge U.nersc --in psi.npy --mass 0.1 --mpi 1.1.1.2 --cpu-halo fast
expect_mpi_error 2 "comms-overlap: sometimes not in {on,off,chunks,thread}" apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --mpi 1.1.1.2 --comms-overlap sometimes
# The sloppy operator's links are blamed on --compress-sloppy.
expect_mpi_error 2 "^dslash: error: --compress-sloppy 8: link (x,y,z,t,mu) = (0,0,0,0,0) does not survive" \
  solve --gauge unit.nersc --in psi.npy --mass 0.1 --mpi 1.1.1.2 --prec mixed --compress-sloppy 8
expect_mpi_error 3 "L0 (x) = 8 is not divisible by 3 ranks" solve --gauge U.nersc --in psi.npy --mass 0.1 --mpi 3.1.1.1
expect_mpi_error 2 "say how they split the lattice with --mpi" solve --random --lattice 8x8x8x8 --mass 0.1
judge_mpi_errors
[ ! -e x.npy ] || fail "a failed apply left x.npy"

# One GPU per rank (--backend cuda), two ranks sharing this machine's GPU: every family agrees with
# the single-process CPU result. Without a GPU: one clear line, exit 2 on every rank, no hang.
set +e
"$mpirun" -np 2 --oversubscribe "$dslash" apply --gauge U.nersc --in psi.npy --out gpu_naive.npy --kernel naive --parity odd --dagger \
  --mpi 1.1.1.2 --backend cuda > gpu.txt 2> gpu.err
rc=$?
set -e
if grep -q "built without CUDA" gpu.err; then
  echo "mpi cli end to end: no CUDA in this build, GPU ranks not tested"
elif command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q GPU; then
  [ "$rc" -eq 0 ] || fail "apply --backend cuda over 2 ranks: exit $rc: $(cat gpu.err)"
  for kernel in mrhs vnode; do
    "$mpirun" -np 2 --oversubscribe "$dslash" apply --gauge U.nersc --in psi.npy --out "gpu_$kernel.npy" --kernel $kernel --parity odd \
      --dagger --mpi 1.1.1.2 --backend cuda > /dev/null || fail "apply --kernel $kernel --backend cuda over 2 ranks"
  done
  "$mpirun" -np 2 --oversubscribe "$dslash" apply --gauge U.nersc --in psi.npy --out gpu_zt.npy --kernel vnode --parity odd \
    --dagger --mpi 1.1.2.1 --backend cuda --comms-overlap off --gpu-halo staged > /dev/null || fail "apply --backend cuda over 1.1.2.1, overlap off, staged"
  /usr/bin/python3 "$npy_close" ref.npy 1e-12 gpu_naive.npy gpu_mrhs.npy gpu_vnode.npy gpu_zt.npy || fail "a GPU decomposed apply differs"
  "$mpirun" -np 2 --oversubscribe "$dslash" solve --gauge U.nersc --in psi.npy --nrhs 8 --mass -0.2 --kernel vnode --prec mixed --mpi 1.1.1.2 \
    --backend cuda --out x_gpu.npy > /dev/null || fail "solve --backend cuda over 2 ranks"
  /usr/bin/python3 "$npy_close" x_one.npy 1e-8 x_gpu.npy || fail "solve --backend cuda over 2 ranks differs from one process"
  "$mpirun" -np 2 --oversubscribe "$dslash" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --backend cuda --prec single --iters 2 --warmup 1 \
    --check --verbose > gpu_bench.txt 2> gpu_bench.err || fail "bench --backend cuda over 2 ranks: $(cat gpu_bench.err)"
  grep -q "check passed: 9 variant(s)" gpu_bench.err || fail "bench --backend cuda --check: $(cat gpu_bench.err)"
  # Ranks of one node: the halos go GPU to GPU (auto); staged through the host when asked.
  for stage in "to peers" interior "project t" "complete t"; do
    grep -q "^#   $stage" gpu_bench.txt || fail "bench --backend cuda --verbose lacks '$stage': $(cat gpu_bench.txt)"
  done
  grep -q "halo at .* of what GPU to GPU (CUDA IPC) moves here" gpu_bench.txt || fail "bench --backend cuda: no peer halo line: $(cat gpu_bench.txt)"
  # The call's timeline, variant by variant: the completion follows the interior on its stream, or
  # where the boundary t-slabs ran beside the interior (naive and mrhs here: outer t 4), follows them.
  awk '/ stages of one call/ { b = 0 } /^#   at: interior done \(GPU\)/ { i = $(NF - 1) } /^#   at: boundary t done \(GPU\)/ { b = $(NF - 1); beside++ }
       /^#   at: complete done \(GPU\)/ { c = $(NF - 1); n++; if (c + 0 < (b > 0 ? b : i) + 0) bad++ }
       END { exit !(n > 0 && beside > 0 && bad == 0) }' gpu_bench.txt || fail "bench --backend cuda --verbose: no timeline, no boundary slabs beside the interior, or the completion ends before what it follows: $(cat gpu_bench.txt)"
  "$mpirun" -np 2 --oversubscribe "$dslash" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --backend cuda --prec double --kernel naive --iters 2 \
    --warmup 1 --check --verbose --gpu-halo staged > gpu_staged.txt 2> gpu_staged.err || fail "bench --gpu-halo staged: $(cat gpu_staged.err)"
  for stage in "copy to host" "copy to device"; do
    grep -q "^#   $stage" gpu_staged.txt || fail "bench --gpu-halo staged --verbose lacks '$stage': $(cat gpu_staged.txt)"
  done
  expect_mpi_error 2 "cpu-halo applies to --backend cpu" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --backend cuda --iters 1 --cpu-halo mpi
  expect_mpi_error 2 "halo-complete applies to --backend cpu" bench --lattice 8x8x8x8 --mpi 1.1.1.2 --backend cuda --iters 1 --halo-complete faces
  judge_mpi_errors
else
  [ "$rc" -eq 2 ] || fail "apply --backend cuda without a GPU: exit $rc, expected 2"
  [ "$(grep -c "no usable CUDA device\|no CUDA device found" gpu.err)" -eq 1 ] || fail "apply --backend cuda without a GPU: $(cat gpu.err)"
fi
# scripts/ab.py over ranks: each side's overhead against the no-halo control, and its stages.
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 "$scripts/ab.py" --a "$dslash" --env-b OMP_NUM_THREADS=1 --rounds 1 --mpirun "$mpirun -np 2 --oversubscribe" \
    --out "$work/ab.json" -- bench --lattice 8x8x8x8 --mpi 1.1.1.2 --kernel vnode --dispatch range --iters 2 > ab.txt 2> ab.err \
    || fail "ab.py over MPI: $(tail -1 ab.err)"
  /usr/bin/python3 - "$work/ab.json" <<'PY' || fail "ab.py over MPI: $(cat ab.txt)"
import json, sys
s = json.load(open(sys.argv[1]))["summary"][0]
for side in ("A", "B"):
    assert "overhead" in s[side] and "stage project" in s[side] and "stage interior" in s[side], s[side]
assert s["B"]["threads"]["median"] == 1, s["B"]
PY
fi
echo "mpi cli end to end: ok"
