#!/usr/bin/env bash
# dslash bench as tools read it: the JSON and CSV carry every field, every timed call counts (rates,
# min/median/max and --traffic alike), --check passes, the tune cache is written, reused, and survives
# corruption, bad flags exit 2. That --check catches a wrong result is test_bench's Check tests.
# Each run measures the machine's ceilings first and after every variant, so one run serves many checks.
set -euo pipefail
dslash=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export DSLASH_TUNE_CACHE="$work/tune.tsv"
# The cache size from DSLASH_LLC_BYTES: each ceiling round's triad spans 4x the cache, which a VM may
# report huge. The size without it (sysfs, cpuid, sysconf) and the header and triad that follow it are
# CacheDetection.TakesTheFirstSourceThatKnowsInOrderSysfsCpuidSysconf, CacheKnown.HeaderSaysFitsOrExceedsAndWhereTheSizeCameFrom
# and CacheUnknown.TriadSpansAtLeastOneGibSoItReadsMemory (test_bench).
export DSLASH_LLC_BYTES=24M
small=(--lattice 8x4x4x8 --iters 3 --warmup 1)
tiny=(--lattice 8x4x4x8)

# Every variant in one run: --check, --traffic (each variant also carries its memory traffic alone)
# and --tile auto (the three mdrange variants are tuned and stored).
"$dslash" bench "${small[@]}" --check --traffic --tile auto --json run.json > table.txt 2> err.txt || fail "bench --check failed: $(cat err.txt)"
grep -q "check passed: 9 variant" err.txt || fail "expected 9 checked variants: $(cat err.txt)"
grep -q "^# ceilings: bandwidth" table.txt || fail "no ceilings line"
grep -q "^# rates from the best of 3 timed calls; min/median/max over all 3, after 1 untimed warm-up calls$" table.txt \
  || fail "the header does not state the timing rule: $(grep rates table.txt)"
grep -q "% trfc" table.txt || fail "no traffic columns: $(cat table.txt)"
grep -q "^# dslash tune cache v1" tune.tsv || fail "tune cache not written"
# DSLASH_LLC_BYTES sets the cache, and the header and JSON say so.
grep -Eq "^# dslash bench: .*footprint .* \((fits in|exceeds) the 24.0 MiB last-level cache, from DSLASH_LLC_BYTES\)$" table.txt \
  || fail "the header does not say the cache came from DSLASH_LLC_BYTES: $(head -1 table.txt)"
grep -q '"llc_bytes": 25165824,' run.json || fail "llc_bytes is not DSLASH_LLC_BYTES: $(grep llc_ run.json)"
# 8x4x4x8 is far under 4x the cache: the header says so once and names the lattice to run.
[ "$(grep -c "^# FOOTPRINT UNDER 4x THE CACHE: one call of dslash_.* run --lattice \([0-9]*\)x\1x\1x\1, the smallest of this shape at 4x$" table.txt)" -eq 1 ] \
  || fail "no footprint warning: $(grep -i footprint table.txt)"

# Half precision storage: every variant checked within the format's bound, its prec and byte model
# in the JSON (392 compulsory bytes a site); no traffic probe for it.
"$dslash" bench "${small[@]}" --prec half --check --json half.json > half.txt 2> err.txt || fail "bench --prec half --check failed: $(cat err.txt)"
grep -q "check passed: 9 variant" err.txt || fail "expected 9 checked half variants: $(cat err.txt)"
grep -q '"prec": "half"' half.json || fail "no half precision in the JSON"
"$dslash" bench "${small[@]}" --prec half --traffic > /dev/null 2> err.txt && fail "--prec half --traffic was accepted"
grep -q "^dslash: error: --traffic has no half precision probe; use --prec single$" err.txt || fail "--prec half --traffic said: $(cat err.txt)"

# The tile the first run stored, read back from the cache: one vnode mdrange run, as CSV with --traffic.
"$dslash" bench "${small[@]}" --kernel vnode --dispatch mdrange --tile auto --traffic --csv --json t2.json > t2.csv 2> err.txt \
  || fail "bench --tile auto from the cache failed: $(cat err.txt)"
/usr/bin/python3 - <<'PY'
import csv, json
j = json.load(open("run.json"))
for k in ("lattice", "threads", "simd", "prec", "compiler", "flags", "git", "date", "host", "fits_in_llc", "omp_proc_bind",
          "llc_bytes", "llc_source", "cpu_model", "command_line"):
    assert k in j["meta"], k
# How the run was started, as run, and on what CPU.
assert j["meta"]["command_line"].endswith(" bench --lattice 8x4x4x8 --iters 3 --warmup 1 --check --traffic --tile auto --json run.json"), \
    j["meta"]["command_line"]
assert j["meta"]["command_line"].split(" ")[0].endswith("dslash"), j["meta"]["command_line"]
assert isinstance(j["meta"]["cpu_model"], str) and j["meta"]["cpu_model"], j["meta"]["cpu_model"]
assert j["meta"]["headline"] == "the best of 3 timed calls; min/median/max over all 3, after 1 untimed warm-up calls", j["meta"]["headline"]
assert j["meta"]["llc_source"] == "DSLASH_LLC_BYTES" and j["meta"]["fits_in_llc"] is not None, j["meta"]
# The smallest call's bytes over the cache, and the L^4 lattice at 4x it (8x4x4x8 is no L^3 x 2L).
ratios = [r["footprint_over_llc"] for r in j["results"]]
assert j["meta"]["footprint_over_llc"] == min(ratios) < 4, (j["meta"]["footprint_over_llc"], ratios)
for r in j["results"]:
    assert abs(r["footprint_over_llc"] - r["call_bytes"] / j["meta"]["llc_bytes"]) < 1e-9, r
L = j["meta"]["dram_lattice"]
assert len(set(L)) == 1 and L[0] % 4 == 0 and L[0] > 8, L
assert j["ceilings"]["bandwidth_GBs"] > 0 and j["ceilings"]["fma_peak_GFLOPs"] > 0
assert j["ceilings"]["triad_bytes"] >= max(4 * j["meta"]["llc_bytes"], 2**30) * 0.99, j["ceilings"]["triad_bytes"]
fields = ("kernel", "dispatch", "prec", "simd", "lanes", "nrhs", "lattice", "parity", "dagger", "layout", "compress", "tile", "tile_source",
          "team_size", "gflops", "gbytes_model", "roofline_gflops", "percent_of_roofline", "time_min_s", "time_median_s",
          "time_max_s", "times_s", "spread")
assert len(j["results"]) == 9, len(j["results"])
for r in j["results"]:
    for f in fields:
        assert f in r, f
    assert r["lattice"] == [8, 4, 4, 8] and r["check"]["passed"] and r["compress"] == 18
    assert r["time_min_s"] <= r["time_median_s"] <= r["time_max_s"]
    # Every timed call counts: the best of all three is the rate, and min/max are over all three.
    assert len(r["times_s"]) == 3 and r["time_min_s"] == min(r["times_s"]) and r["time_max_s"] == max(r["times_s"]), r["times_s"]
    assert r["dispatch"] != "team" or r["sites_per_team"] >= 1, r  # the chunk that ran, not 0 for "default"
    assert abs(r["percent_of_roofline"] - 100 * r["gflops"] / r["roofline_gflops"]) < 1e-6
    assert r["tile_source"] == ("tuned" if r["dispatch"] == "mdrange" else "default"), r
    # The traffic is timed by the Dslash's rule: its best of all three timed calls.
    assert r["traffic_gflops"] > 0 and len(r["traffic_times_s"]) == 3, r
    flops = r["gflops"] * r["time_min_s"]
    assert abs(r["traffic_gflops"] * min(r["traffic_times_s"]) - flops) < 1e-9 * flops, (r["traffic_gflops"], r["traffic_times_s"])
    assert abs(r["traffic_percent_of_roofline"] - 100 * r["traffic_gflops"] / r["roofline_gflops"]) < 1e-6
# A round of ceilings (nine triads, five FMA loops per instruction set) at the start and after each
# variant; every roofline from the run's best, at CONVENTIONS.md's compulsory bytes (checkerboarded,
# single precision).
c = j["ceilings"]
triads, loops = c["bandwidth_samples_GBs"], c["fma_samples_GFLOPs"]
assert c["rounds"] == 1 + len(j["results"]) and len(triads) == 9 * c["rounds"], (c["rounds"], len(triads))
assert max(triads) == c["bandwidth_GBs"] and set(loops) == set(c["fma_peak_GFLOPs_by_simd"]) == {"scalar", j["meta"]["simd"]}
for simd, peak in c["fma_peak_GFLOPs_by_simd"].items():
    assert len(loops[simd]) == 5 * c["rounds"] and max(loops[simd]) == peak, simd
for r in j["results"]:
    assert r["fma_peak_gflops"] == c["fma_peak_GFLOPs_by_simd"][r["simd"]], (r["kernel"], r["fma_peak_gflops"])
    compulsory = (8 * 18 / (r["nrhs"] if r["kernel"] == "mrhs" else 1) + 48) * 4
    roof = min(c["bandwidth_GBs"] * 1320 / compulsory, r["fma_peak_gflops"])
    assert abs(r["roofline_gflops"] - roof) < 1e-9 * roof, (r["kernel"], r["roofline_gflops"], roof)
assert json.load(open("t2.json"))["results"][0]["tile_source"] == "cache"
rows = list(csv.DictReader(open("t2.csv")))
assert len(rows) == 1 and rows[0]["kernel"] == "vnode" and rows[0]["layout"] == "right" and float(rows[0]["gflops"]) > 0, rows
assert rows[0]["compress"] == "18" and rows[0]["tile_source"] == "cache" and float(rows[0]["traffic_gflops"]) > 0, rows
PY

# Any number of right-hand sides for mrhs: 3 are padded to the lanes, the check passes for each, the
# rate counts the 3 (1320 flops a site each) and the roofline the bytes moved: the links shared by 3,
# the padded spinors charged to them.
"$dslash" bench "${small[@]}" --kernel mrhs --nrhs 3 --check --json r3.json > r3.txt 2> err.txt || fail "bench --kernel mrhs --nrhs 3 failed: $(cat err.txt)"
/usr/bin/python3 - <<'PY'
import json
j = json.load(open("r3.json"))
c = j["ceilings"]
for r in j["results"]:
    assert r["kernel"] == "mrhs" and r["nrhs"] == 3 and r["check"]["passed"], r
    padded = -(-3 // r["lanes"]) * r["lanes"]
    flops = 1320 * 8 * 4 * 4 * 8 / 2 * 3
    assert abs(r["gflops"] * r["time_min_s"] * 1e9 - flops) < 1e-6 * flops, (r["gflops"], r["time_min_s"])
    compulsory = (8 * 18 / 3 + 48 * padded / 3) * 4
    roof = min(c["bandwidth_GBs"] * 1320 / compulsory, r["fma_peak_gflops"])
    assert abs(r["roofline_gflops"] - roof) < 1e-9 * roof, (r["roofline_gflops"], roof)
PY

# Gauge compression: the header, the JSON and the CSV say it, the roofline follows the links as
# stored ((8 x 12 + 48) x 4 compulsory bytes per site), and --check still passes. The run's team is
# as large as its threads: no oversubscription warning.
"$dslash" bench "${small[@]}" --kernel vnode --dispatch team --team-size 2 --threads 2 --compress 12 --check --json r12.json > r12.txt 2> err.txt \
  || fail "bench --compress 12 failed: $(cat err.txt)"
grep -q "^# simd .*, gauge compression 12 reals per link (two rows stored, the third rebuilt)" r12.txt || fail "the header does not name the compression: $(cat r12.txt)"
if grep -q "warning: --team-size" err.txt; then fail "a team of the threads' size was warned about: $(cat err.txt)"; fi
# A corrupt cache is reported and ignored (the tile is tuned again), never fatal; the CSV names the
# compression; more threads than cores: the run goes on, with a warning.
printf '# dslash tune cache v1\nthis line is garbage\n' > tune.tsv
over=$(( $(nproc) + 1 ))
"$dslash" bench "${small[@]}" --kernel vnode --dispatch mdrange --tile auto --compress 8 --threads "$over" --csv > r8.csv 2> err.txt \
  || fail "bench on a corrupt cache, --threads $over failed: $(cat err.txt)"
grep -q "corrupt" err.txt || fail "corrupt cache not reported"
grep -q "warning: --threads $over is more than the" err.txt || fail "no oversubscription warning: $(cat err.txt)"
/usr/bin/python3 - <<'PY'
import csv, json
j = json.load(open("r12.json"))
assert j["meta"]["compress"] == 12, j["meta"]
[r] = j["results"]
assert r["compress"] == 12 and r["check"]["passed"], r
roof = min(j["ceilings"]["bandwidth_GBs"] * 1320 / ((8 * 12 + 48) * 4), r["fma_peak_gflops"])
assert abs(r["roofline_gflops"] - roof) < 1e-9 * roof, (r["roofline_gflops"], roof)
rows = list(csv.DictReader(open("r8.csv")))
assert len(rows) == 1 and rows[0]["compress"] == "8" and rows[0]["tile_source"] == "tuned", rows
PY
# A DSLASH_TUNE_CACHE that is not a tune cache is reported in one line and never written.
printf 'not a cache at all\n' > tune.tsv
"$dslash" bench "${small[@]}" --kernel naive --dispatch team --team-size auto > /dev/null 2> err.txt || fail "foreign cache was fatal"
[ "$(grep -c "is not a '# dslash tune cache v1' file: leaving it as it is and running without a tune cache" err.txt)" -eq 1 ] \
  || fail "foreign cache not reported in one line: $(cat err.txt)"
[ "$(cat tune.tsv)" = "not a cache at all" ] || fail "a foreign DSLASH_TUNE_CACHE was overwritten: $(head -3 tune.tsv)"

# Bad flags: exit 2, one line (so no ceilings were measured first), saying what is wrong. (Each
# option given once: CLI11 refuses a repeated one, which would hide the error under test.)
bad_flag() {
  local pattern=$1; shift
  set +e
  "$dslash" bench "$@" > /dev/null 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "bench $* exited $rc"
  [ "$(grep -c . err.txt)" -eq 1 ] || fail "bench $* printed: $(cat err.txt)"
  grep -q -- "$pattern" err.txt || fail "bench $* said '$(cat err.txt)', expected '$pattern'"
}
bad_flag "--kernel" "${tiny[@]}" --kernel nope
bad_flag "--iters 0: too small" "${tiny[@]}" --iters 0
bad_flag "must be even" --lattice 5x4x4x4
bad_flag "error: --tile '1.2.3': expected four sizes a.b.c.d" "${tiny[@]}" --tile 1.2.3
bad_flag "error: --tile '2.2.2.2.2': expected four sizes a.b.c.d" "${tiny[@]}" --dispatch mdrange --tile 2.2.2.2.2
bad_flag "error: --tile applies to --dispatch mdrange$" "${tiny[@]}" --dispatch range --tile 2.2.2.2
bad_flag "error: --team-size applies to --dispatch team$" "${tiny[@]}" --dispatch mdrange --team-size 2
bad_flag "--team-size two: not a whole number; expected a whole number from 1 to [0-9]*, or auto" "${tiny[@]}" --team-size two
bad_flag "--team-size 99999999999: too large" "${tiny[@]}" --team-size 99999999999
bad_flag "avx9000" "${tiny[@]}" --simd avx9000
bad_flag "--seed -1: negative" "${tiny[@]}" --seed -1
bad_flag "--threads 0: too small" "${tiny[@]}" --threads 0
bad_flag "--nrhs does not apply to --kernel naive" "${tiny[@]}" --kernel naive --nrhs 4
bad_flag "--simd avx2 does not apply to --kernel naive" "${tiny[@]}" --kernel naive --simd avx2
bad_flag "--comms-overlap requires --mpi" "${tiny[@]}" --comms-overlap off
bad_flag "--backend: gpu not in" "${tiny[@]}" --backend gpu
bad_flag "--compress: 7 not in" "${tiny[@]}" --compress 7
DSLASH_LLC_BYTES=lots bad_flag "DSLASH_LLC_BYTES='lots': expected a cache size" "${tiny[@]}"
DSLASH_LLC_BYTES=64G bad_flag "DSLASH_LLC_BYTES='64G': expected a cache size from 1K to 4G" "${tiny[@]}"
DSLASH_LLC_BYTES=99999999999999999999999 bad_flag "DSLASH_LLC_BYTES='99999999999999999999999': expected a cache size from 1K to 4G" "${tiny[@]}"
# What the kernels refuse of the options is refused before the ceilings, in the kernel's words.
bad_flag "vnode (.*) folds [0-9]* lanes over [xyzt]*: L[0-3] ([xyzt]) = 6 must be a multiple of" --lattice 6x6x6x6 --kernel vnode
bad_flag "a team traversal block of 1000 z-planes must divide the outer z extent" "${tiny[@]}" --dispatch team --block-z 1000
# --backend cuda without a usable GPU (or in a build without CUDA) says why, at once; with a GPU the
# CPU-only options are refused.
if nvidia-smi -L > /dev/null 2>&1; then
  bad_flag "--simd does not apply to --backend cuda" "${tiny[@]}" --backend cuda --simd avx2
  bad_flag "--traffic does not apply to --backend cuda" "${tiny[@]}" --backend cuda --traffic
  # Tuned GPU teams of every kernel: the shapes a kernel's registers refuse at launch (mrhs and
  # vnode: 64 threads x 16 lanes) are skipped, not fatal.
  "$dslash" bench --lattice 16x8x8x16 --iters 3 --warmup 1 --backend cuda --dispatch team --team-size auto --json gpu_team.json \
    > /dev/null 2> err.txt || fail "a tuned GPU team run failed: $(tail -3 err.txt)"
  /usr/bin/python3 -c "
import json
r = json.load(open('gpu_team.json'))['results']
assert {'naive', 'mrhs'} <= {x['kernel'] for x in r}, r
assert all(x['tile_source'] == 'tuned' for x in r), r" || fail "the tuned GPU team run did not tune every kernel"
else
  bad_flag "--backend cuda: \(no usable CUDA device\|no CUDA device\|this dslash was built without CUDA\)" "${tiny[@]}" --backend cuda
fi
# An unwritable --json fails before the ceilings are measured, not after every variant ran.
mkdir jsondir
start=$(date +%s%N)
bad_flag "--json: cannot write '/nonexistent/dir/j.json': directory '/nonexistent/dir' does not exist" "${tiny[@]}" --json /nonexistent/dir/j.json
bad_flag "--json: cannot write 'jsondir': it is a directory" "${tiny[@]}" --json jsondir
bad_flag "--json: cannot write 'jsondir/': a name ending in '/' is a directory" "${tiny[@]}" --json jsondir/
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed_ms" -lt 5000 ] || fail "three refused --json runs took $elapsed_ms ms: the check came after the work"
[ -z "$(ls -A jsondir)" ] || fail "a refused --json left $(ls -A jsondir)"
# A CPU team larger than the threads that run it takes turns on the cores: said, and still run.
"$dslash" bench --lattice 4x4x4x4 --iters 1 --warmup 0 --kernel naive --dispatch team --team-size 3 --threads 2 > /dev/null 2> err.txt \
  || fail "bench --team-size 3 --threads 2 failed: $(cat err.txt)"
grep -q "warning: --team-size 3 is more than the 2 OpenMP thread(s)" err.txt || fail "no team oversubscription warning: $(cat err.txt)"
echo "bench end-to-end: all checks passed"
