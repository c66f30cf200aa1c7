#!/usr/bin/env bash
# The GPU host's runs behind docs/PERFORMANCE.md, in one command, for a host with nvcc but no
# package registry. Here, once: `mkdir -p .carry && (cd .carry && apt-get download libxsimd-dev
# libcli11-dev nlohmann-json3-dev)`; there, the .debs are unpacked into .carry/prefix, build/cuda
# is configured (cuda preset, MPI when found) and built on every core, and each step named runs,
# its JSON (and logs) written under $OUT (default: out/gpu_host):
#   test   the whole suite: ctest --test-dir build/cuda
#   bench  dslash bench --backend cuda, tuned, 32^4 and 48^4, single and double (compress 18)
#   sweep  scripts/sweep.py over 8^4 .. 64^4, single and double
#   solve  dslash solve --backend cuda: CG and BiCGStab, naive and vnode, double and mixed, 32^4,
#          m = -1, to 1e-10; CG naive and vnode and BiCGStab vnode at 48^4; and CG vnode on all
#          CPU cores
#   cpu    the host's CPU cores at 48^4 (footprint over 4x the L3): vnode and mrhs, single and
#          double, every core, tuned team launches, with the traffic alone; mrhs in tuned MDRange
#          tiles (whole-t columns); vnode's access pattern part by part (bench/vnode_access_probe);
#          then vnode single (range) on 1, 2, 4, 8 and 16 threads
#   mixed  the mixed solve against double, CG, 32^4, m = -1, to 1e-10, three interleaved rounds of
#          double, mixed and mixed with 12-real single-precision links (--compress-sloppy 12): naive
#          on the GPU, then vnode on all CPU cores
#   halo   the GPU halo over 2 ranks (each its own GPU where there are 2, else sharing one), 32^4,
#          t split, naive range, single and double: staged through the host against GPU to GPU
#          (--gpu-halo staged|peer), three interleaved rounds, --verbose stage breakdowns
#   cpumpi the CPU ranks' halo, 32^4 vnode range: 8 ranks x 2 threads (1.2.2.2 single and double,
#          2.2.2.1 single) and 2 x 8 (1.1.1.2 single), three ways: the shared-memory window with the
#          hops in the interior kernel (the default), the same with face kernels (--halo-complete
#          faces), MPI messages (--cpu-halo mpi); three interleaved rounds, --verbose stage breakdowns
#   profile  Nsight Compute (ncu) on the best kernel, naive team, 32^4 and 48^4 single, 32^4 double:
#          DRAM bytes, L2 hit rate, occupancy, registers (ncu locks the clocks and flushes the
#          caches before the profiled launch: its times are not the bench's)
#   bash scripts/gpu_host.sh [test] [bench] [sweep] [solve] [mixed] [halo] [cpu] [cpumpi] [profile]     (none: test bench solve)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu_host}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(test bench solve)
for s in "${steps[@]}"; do
  case "$s" in
    test | bench | sweep | solve | mixed | halo | cpu | cpumpi | profile) ;;
    *) echo "error: unknown step '$s' (try: test bench sweep solve mixed halo cpu cpumpi profile)" >&2; exit 2 ;;
  esac
done
command -v nvcc > /dev/null || { echo "error: no nvcc on the PATH: this script is for a host with CUDA" >&2; exit 2; }
if [[ " ${steps[*]} " == *" profile "* ]] && ! command -v ncu > /dev/null; then
  echo "error: no ncu (Nsight Compute) on the PATH for the profile step" >&2
  exit 2
fi
mkdir -p "$out"

prefix=$PWD/.carry/prefix
if ! compgen -G ".carry/*.deb" > /dev/null; then
  echo "note: no .carry/*.deb: the libraries must already be installed" >&2
elif [ ! -d "$prefix/usr" ]; then
  for f in .carry/*.deb; do dpkg -x "$f" "$prefix"; done
fi
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
start=$(date +%s)
[ -f build/cuda/CMakeCache.txt ] || cmake --preset cuda "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix/usr" > "$out/configure.log"
cmake --build build/cuda -j "$(nproc)" > "$out/build.log" || { tail -30 "$out/build.log" >&2; exit 1; }
echo "== built in $(( $(date +%s) - start )) s" >&2
dslash=build/cuda/src/cli/dslash

for s in "${steps[@]}"; do
  case "$s" in
    test)
      (cd build/cuda && ctest -j "$(nproc)" --timeout 300) > "$out/ctest.log" 2>&1 && rc=0 || rc=$?
      grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" >&2
      [ "$rc" -eq 0 ] || exit "$rc" ;;
    bench)
      for lattice in 32x32x32x32 48x48x48x48; do
        for prec in single double; do
          "$dslash" bench --backend cuda --lattice "$lattice" --prec "$prec" --iters 20 --tile auto --team-size auto \
            --json "$out/gpu_${lattice%%x*}_${prec}_c18.json" | tail -n 12
        done
      done ;;
    sweep)
      /usr/bin/python3 scripts/sweep.py --dslash "$dslash" --prec single double --iters 20 \
        --lattices 8x8x8x8 12x12x12x12 16x16x16x16 24x24x24x24 32x32x32x32 40x40x40x40 48x48x48x48 56x56x56x56 64x64x64x64 \
        --extra "--backend cuda --tile auto --team-size auto" --out "$out/gpu_sweep.json" ;;
    solve)
      for solver in cg bicgstab; do
        for kernel in naive vnode; do
          for prec in double mixed; do
            "$dslash" solve --backend cuda --random --lattice 32x32x32x32 --seed 3 --mass -1.0 --solver "$solver" --kernel "$kernel" \
              --prec "$prec" --tol 1e-10 --maxiter 20000 --json "$out/gpu_solve_${solver}_${kernel}_${prec}_m1.json" | grep -E "^(converged|dslash):"
          done
        done
      done
      # 48^4: where a solve's fixed costs (setup, the launches after each reduction) weigh less
      for run in cg:naive cg:vnode bicgstab:vnode; do
        for prec in double mixed; do
          "$dslash" solve --backend cuda --random --lattice 48x48x48x48 --seed 3 --mass -1.0 --solver "${run%:*}" --kernel "${run#*:}" \
            --prec "$prec" --tol 1e-10 --maxiter 20000 --json "$out/gpu_solve_${run%:*}_${run#*:}_${prec}_m1_48.json" | grep -E "^(converged|dslash):"
        done
      done
      for prec in double mixed; do
        OMP_PROC_BIND=close OMP_PLACES=cores "$dslash" solve --random --lattice 32x32x32x32 --seed 3 --mass -1.0 --solver cg --kernel vnode \
          --prec "$prec" --tol 1e-10 --maxiter 20000 --json "$out/cpu_solve_cg_vnode_${prec}_m1.json" | grep -E "^(converged|dslash):"
      done ;;
    mixed)
      for round in 1 2 3; do
        for backend in cuda cpu; do
          kernel=naive
          [ "$backend" = cpu ] && kernel=vnode
          for variant in double mixed mixed12; do
            prec=${variant%12}
            extra=()
            [ "$variant" = mixed12 ] && extra=(--compress-sloppy 12)
            OMP_PROC_BIND=close OMP_PLACES=cores "$dslash" solve --backend "$backend" --random --lattice 32x32x32x32 --seed 3 --mass -1.0 \
              --solver cg --kernel "$kernel" --prec "$prec" "${extra[@]}" --tol 1e-10 --maxiter 20000 \
              --json "$out/mixed_${backend}_${variant}_r${round}.json" | grep -E "^(converged|dslash):" | sed "s/^/$backend $variant r$round: /"
          done
        done
      done ;;
    halo)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      gpus=$(nvidia-smi -L | grep -c GPU)
      per_rank=()
      [ "$gpus" -ge 2 ] && per_rank=(--gpu-per-rank)
      for round in 1 2 3; do
        for prec in single double; do
          for how in staged peer; do
            mpirun -np 2 --bind-to none "$dslash" bench --backend cuda --lattice 32x32x32x32 --mpi 1.1.1.2 "${per_rank[@]}" --kernel naive \
              --dispatch range --prec "$prec" --iters 20 --gpu-halo "$how" --verbose --json "$out/halo_${gpus}gpu_${prec}_${how}_r${round}.json" \
              > "$out/halo_${gpus}gpu_${prec}_${how}_r${round}.txt"
            grep -E "^# .*halo at|^#   (call|wait|copy|interior|control)" "$out/halo_${gpus}gpu_${prec}_${how}_r${round}.txt" | sed "s/^/$prec $how r$round: /"
          done
        done
      done ;;
    cpu)
      export OMP_PROC_BIND=close OMP_PLACES=cores
      cores=$(nproc)
      for kernel in vnode mrhs; do
        for prec in single double; do
          OMP_NUM_THREADS=$cores "$dslash" bench --lattice 48x48x48x48 --kernel "$kernel" --prec "$prec" --dispatch team --team-size auto \
            --iters 6 --traffic --json "$out/cpu_48_${kernel}_${prec}_t${cores}.json" | grep -E "^(vnode|mrhs) "
        done
      done
      for prec in single double; do  # mrhs in whole-t columns (MDRange), as the tuner finds them
        OMP_NUM_THREADS=$cores "$dslash" bench --lattice 48x48x48x48 --kernel mrhs --prec "$prec" --dispatch mdrange --tile auto \
          --iters 5 --json "$out/cpu_48_mrhs_${prec}_mdrange_t${cores}.json" | grep -E "^mrhs "
      done
      OMP_NUM_THREADS=$cores build/cuda/bench/vnode_access_probe 24 > "$out/cpu_48_vnode_access_probe_t${cores}.txt"
      for threads in 1 2 4 8 16; do
        [ "$threads" -le "$cores" ] || continue
        OMP_NUM_THREADS=$threads "$dslash" bench --lattice 48x48x48x48 --kernel vnode --prec single --dispatch range --threads "$threads" \
          --iters 3 --traffic --json "$out/cpu_48_vnode_single_range_t${threads}.json" | grep -E "^vnode "
      done ;;
    cpumpi)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      cores=$(nproc)
      bind=(--bind-to core -x OMP_PROC_BIND=close -x OMP_PLACES=cores)
      for round in 1 2 3; do
        for how in shared faces mpi; do
          halo=(--cpu-halo "$how")
          [ "$how" = faces ] && halo=(--cpu-halo shared --halo-complete faces)
          for run in 8:1.2.2.2:single 8:1.2.2.2:double 8:2.2.2.1:single 2:1.1.1.2:single; do
            IFS=: read -r ranks grid prec <<< "$run"
            name="cpumpi_${ranks}x$(( cores / ranks ))_${grid}_${prec}_${how}_r${round}"
            mpirun -np "$ranks" --map-by "slot:PE=$(( cores / ranks ))" "${bind[@]}" -x OMP_NUM_THREADS=$(( cores / ranks )) "$dslash" bench \
              --lattice 32x32x32x32 --mpi "$grid" --kernel vnode --dispatch range --prec "$prec" --iters 20 "${halo[@]}" --verbose \
              --json "$out/$name.json" > "$out/$name.txt"
            grep -E "^# .*halo at" "$out/$name.txt" | sed "s/^# [^:]*:/$name:/"
          done
        done
      done ;;
    profile)
      # The third team launch of the run (two warm-up calls first), with the sections that say
      # where a memory-bound kernel stands and the bytes DRAM really moved.
      for case in 32x32x32x32:single 48x48x48x48:single 32x32x32x32:double; do
        lattice=${case%%:*} prec=${case##*:}
        ncu --kernel-name regex:team_for --launch-skip 2 --launch-count 1 \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
          --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active \
          "$dslash" bench --backend cuda --kernel naive --dispatch team --team-size 32 --lattice "$lattice" --prec "$prec" --iters 3 \
          > "$out/ncu_naive_team_${lattice%%x*}_${prec}.txt" 2>&1 || { tail -20 "$out/ncu_naive_team_${lattice%%x*}_${prec}.txt" >&2; exit 1; }
        grep -E "dram__bytes|lts__t_sector_hit|warps_active|Registers Per|Achieved Occupancy|DRAM Throughput|Duration" \
          "$out/ncu_naive_team_${lattice%%x*}_${prec}.txt" >&2
      done ;;
  esac
done
echo "== done in $(( $(date +%s) - start )) s; results in $out" >&2
