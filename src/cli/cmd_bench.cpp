// dslash bench: how fast is each kernel x dispatch on this machine, and how close to its roofline.
// Results on stdout (a table, or CSV with --csv), the run header as '#' lines (stderr with --csv),
// progress on stderr, everything in --json FILE.
#include <omp.h>

#include "bench/single_benchmark.hpp"
#include "cli/bench_options.hpp"

namespace dslash::cli {

namespace {

// The options bound to the single-process engine (bench/single_benchmark.hpp), which measures and
// reports. Space: HostSpace runs the CPU kernels, CudaSpace the GPU's (--backend cuda).
template <class Real, class Space>
int run_bench(const BenchOptions& o) {
  constexpr bool kDevice = !Space::host_accessible;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const SimdIsa isa = kDevice ? SimdIsa::Simt : simd_isa(o.k.simd);
  const int F = sizeof(Real);
  bench::SingleBenchConfig c;
  const std::array<index_t, 4> tile = o.k.tile.value_or(DslashConfig{}.tile);
  const int team = o.k.team_size;  // 0: the backend's default (DslashKernel::launch)
  for (KernelFamily k : expand(o.kernel, {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode}))
    for (Dispatch disp : expand(o.k.dispatch, {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})) {
      bench::VariantRequest request{.cfg = variant_config(o, k, disp, isa, F)};
      request.cfg.tile = tile;
      request.cfg.team_size = team;
      request.tune_tile = disp == Dispatch::MDRange && o.k.tune_tile;
      request.tune_team = disp == Dispatch::Team && o.k.tune_team_size;
      c.variants.push_back(request);
    }
  c.run = run_info(o, isa, F);
  c.skip_refused = !o.kernel;
  c.settings = {.iters = o.iters, .warmup = o.warmup, .check = o.check, .traffic = o.traffic, .seed = o.seed};
  return bench::report(bench::run_single_benchmark<Real, Space>(c), {.csv = o.csv, .json = o.json});
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("bench", "time every kernel x dispatch and compare with the machine's roofline");
  add_lattice_option(*cmd, o->dims, "32x32x32x32");
  add_kernel_option(*cmd, o->kernel, "all", "kernel");
  add_dispatch_option(*cmd, o->k.dispatch, true, "dispatch");
  add_precision_option(*cmd, o->k.prec, "precision");
  add_int_option(*cmd, "--nrhs", o->nrhs, 1, kMaxRhs, "right-hand sides for mrhs (default: the SIMD lanes)");
  add_simd_option(*cmd, o->k.simd, "instruction set (scalar, sse2, avx2, avx512, emulated512, auto)");
  add_tile_option(*cmd, o->k, true, "MDRange tile a.b.c.d, or auto to tune (and cache) it");
  add_team_size_option(*cmd, o->k, true, "threads per team (default: one warp on a GPU, 1 on a CPU), or auto to tune (and cache) it");
  add_int_option(*cmd, "--block-z", o->block_z, 1, 1 << 20,
                 "team launches: visit the sites in blocks of N outer z-planes, t inside each (default: from the last-level cache; the "
                 "outer z extent = index order)");
  add_int_option(*cmd, "--threads", o->threads, 1, 4096, "OpenMP threads (default: OMP_NUM_THREADS or all cores)");
  add_schedule_option(*cmd);
  add_parity_option(*cmd, o->k.parity, "output sites");
  add_layout_option(*cmd, o->k.layout);
  cmd->add_flag("--dagger", o->k.dagger, "time D^dagger");
  add_compress_option(*cmd, o->k.compress);
  add_int_option(*cmd, "--iters", o->iters, 1, 100000, "timed calls per variant")->default_str(std::to_string(o->iters));
  add_int_option(*cmd, "--warmup", o->warmup, 0, 100000, "untimed calls first")->default_str(std::to_string(o->warmup));
  add_seed_option(*cmd, o->seed, "random seed of the gauge field and spinors");
  cmd->add_flag("--check", o->check, "verify every variant against the reference; exit 1 on a mismatch");
  cmd->add_flag("--traffic", o->traffic, "also time each variant's memory traffic alone (its loads and stores, no arithmetic)");
  cmd->add_option("--json", o->json, "write every figure and the run header to this JSON file");
  cmd->add_flag("--csv", o->csv, "print CSV instead of a table");
  add_mpi_options(*cmd, o->mpi);
  cmd->add_flag("--verbose", o->verbose, "with --mpi: each variant's call stage by stage (project, post, interior, wait, complete)")->needs("--mpi");
  add_choice_option(*cmd, "--halo-messages", o->mpi.halo.coalesce,
                    {{mpi::halo_messages_name(true), true}, {mpi::halo_messages_name(false), false}},
                    "with --mpi: one message per neighbouring rank (per-peer) or per face")
      ->needs("--mpi");
  add_int_option(*cmd, "--halo-chunks", o->mpi.halo.chunks, 1, 4096, "with --mpi --comms-overlap chunks: interior slabs (default: automatic)")
      ->needs("--mpi");
  add_backend_option(*cmd, o->backend);
  cmd->callback([o, cmd, &exit_code] {
    if (o->kernel == KernelFamily::Naive || o->kernel == KernelFamily::Vnode)
      reject_given(*cmd, {"--nrhs"}, "to --kernel " + std::string(to_string(*o->kernel)) + ", which takes one right-hand side (--nrhs is for mrhs)");
    reject_simd_for_naive(o->kernel, o->k.simd);
    check_launch_shape(o->k.dispatch, o->k.tile || o->k.tune_tile, o->k.team_size > 0 || o->k.tune_team_size);  // the MPI run's too
    if (o->block_z != 0 && o->k.dispatch && *o->k.dispatch != Dispatch::Team) throw std::invalid_argument("--block-z applies to --dispatch team");
    const bool distributed = o->mpi.distributed();  // in a build without MPI, rejects --mpi with the reason
    if (distributed && o->traffic) throw std::invalid_argument("--traffic applies to single-process runs");
    reject_half_under_mpi(o->k.prec, distributed);
    if (o->k.prec == Precision::Half && o->traffic) throw std::invalid_argument("--traffic has no half precision probe; use --prec single");
    if (o->threads > 0) warn_if_oversubscribed(o->threads);
    if (o->backend == Backend::Cpu && o->k.team_size > 0)
      warn_if_team_oversubscribes(o->k.team_size, o->threads > 0 ? o->threads : omp_get_max_threads());
    check_files({}, {{"--json", o->json}});  // now, not after minutes of measuring
    o->mpi.check_backend(o->backend);
    if (o->backend == Backend::Cuda)
      require_cuda(*cmd, distributed ? std::initializer_list<const char*>{"--simd", "--threads", "--schedule", "--layout"}
                                     : std::initializer_list<const char*>{"--simd", "--threads", "--schedule", "--layout", "--traffic"},
                   distributed);
    exit_code = with_precision_and_backend(o->k.prec, o->backend, [&]<class Real, class Space>() {
#if defined(DSLASH_HAVE_MPI)
      if (distributed) return run_bench_mpi<Real, Space>(*o);
#endif
      return run_bench<Real, Space>(*o);
    });
  });
}

}  // namespace dslash::cli
