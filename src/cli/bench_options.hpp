#pragma once
// The options of `dslash bench`, shared by the single-process run (cmd_bench.cpp) and the MPI run
// (cmd_bench_mpi.cpp).
#include <omp.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "cli/commands.hpp"

namespace dslash::cli {

struct BenchOptions {
  Coord dims{32, 32, 32, 32};
  std::optional<KernelFamily> kernel;  // nullopt: all
  KernelOptions k{.dispatch = std::nullopt, .prec = Precision::Single};  // every dispatch unless --dispatch
  std::string json;
  Backend backend = Backend::Cpu;
  int nrhs = 0, threads = 0, iters = 10, warmup = 2;
  int block_z = 0;  // team launches: traversal block in outer z-planes; 0: from the cache
  bool check = false, csv = false, traffic = false, verbose = false;
  std::uint64_t seed = 1;
  MpiOptions mpi;  // with bench's own --halo-messages and --halo-chunks in mpi.halo
};

// nullopt (all) -> every value; a value -> itself.
template <class E>
std::vector<E> expand(std::optional<E> value, std::initializer_list<E> all) {
  if (value) return {*value};
  return all;
}

// The launch configuration of one variant (kernel x dispatch) from the options; the caller adds
// the launch shape. mrhs takes --nrhs, or one right-hand side per SIMD lane.
inline DslashConfig variant_config(const BenchOptions& o, KernelFamily kernel, Dispatch dispatch, SimdIsa isa, int bytes_per_real) {
  DslashConfig cfg;
  cfg.kernel = kernel;
  cfg.dispatch = dispatch;
  cfg.isa = isa;
  cfg.out = o.k.parity;
  cfg.dagger = o.k.dagger;
  cfg.layout = o.k.layout;
  cfg.compress = o.k.compress;
  cfg.half = o.k.prec == Precision::Half;
  cfg.nrhs = cfg.kernel == KernelFamily::Mrhs ? (o.nrhs > 0 ? o.nrhs : simd_lanes(isa, bytes_per_real)) : 1;
  if (cfg.dispatch == Dispatch::Team) cfg.block_z = o.block_z;
  return cfg;
}

// What every bench's report says about its run, from the options, started now; the bench adds
// where it ran (lattice or grid, sites, footprint, cache) and its own fields.
inline bench::RunInfo run_info(const BenchOptions& o, SimdIsa isa, int bytes_per_real) {
  bench::RunInfo run;
  run.started = bench::now_iso8601();
  run.lattice = o.dims;
  run.threads = omp_get_max_threads();
  run.isa = isa;
  run.isas = {isa};
  if (isa != SimdIsa::Scalar && o.kernel != KernelFamily::Mrhs && o.kernel != KernelFamily::Vnode) run.isas.push_back(SimdIsa::Scalar);  // naive runs scalar
  run.bytes_per_real = bytes_per_real;
  run.half = o.k.prec == Precision::Half;
  run.iters = o.iters;
  run.warmup = o.warmup;
  run.parity = to_string(o.k.parity);
  run.dagger = o.k.dagger;
  run.compress = o.k.compress;
  return run;
}

// The MPI run of `dslash bench` (only in a build with MPI; Real float or double, Space HostSpace or,
// with CUDA, CudaSpace): exit status as run_bench's.
template <class Real, class Space>
int run_bench_mpi(const BenchOptions& o);

}  // namespace dslash::cli
