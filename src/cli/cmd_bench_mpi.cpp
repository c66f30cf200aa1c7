// dslash bench under mpirun: the options bound to the MPI engine (bench/mpi_benchmark.hpp), which
// measures and reports.
#include <omp.h>

#include "bench/mpi_benchmark.hpp"
#include "cli/bench_options.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::cli {

template <class Real, class Space>
int run_bench_mpi(const BenchOptions& o) {
  constexpr bool kDevice = !Space::host_accessible;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  if (o.k.tune_tile || o.k.tune_team_size)
    throw std::invalid_argument("--tile/--team-size auto tune in one process: tune on the local lattice without --mpi, then pass the result");
  const int F = sizeof(Real);
  bench::MpiBenchConfig c;
  c.grid = mpi::parse_grid(o.mpi.grid);
  const SimdIsa isa = kDevice ? SimdIsa::Simt : simd_isa(o.k.simd);
  const std::array<index_t, 4> tile = o.k.tile.value_or(DslashConfig{}.tile);
  const int team = o.k.team_size;  // 0: the backend's default (DslashKernel::launch)
  for (KernelFamily k : expand(o.kernel, {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode}))
    for (Dispatch disp : expand(o.k.dispatch, {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})) {
      DslashConfig cfg = variant_config(o, k, disp, isa, F);
      if (cfg.dispatch == Dispatch::MDRange) cfg.tile = tile;
      if (cfg.dispatch == Dispatch::Team) cfg.team_size = team;
      c.variants.push_back({.cfg = cfg});
    }
  c.run = run_info(o, isa, F);
  c.skip_refused = !o.kernel;
  c.settings = {.iters = o.iters, .warmup = o.warmup, .check = o.check, .seed = o.seed};
  c.halo = o.mpi.halo;
  c.progress = o.mpi.progress;
  c.gpu_per_rank = o.mpi.gpu_per_rank;
  return bench::report(bench::run_mpi_benchmark<Real, Space>(c), {.csv = o.csv, .verbose = o.verbose, .json = o.json});
}

template int run_bench_mpi<float, HostSpace>(const BenchOptions&);
template int run_bench_mpi<double, HostSpace>(const BenchOptions&);
#if defined(DSLASH_HAVE_CUDA)
template int run_bench_mpi<float, CudaSpace>(const BenchOptions&);
template int run_bench_mpi<double, CudaSpace>(const BenchOptions&);
#endif

}  // namespace dslash::cli
