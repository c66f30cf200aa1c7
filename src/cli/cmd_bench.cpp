// dslash bench: how fast is each kernel x dispatch on this machine, and how close to its roofline.
// Results on stdout (a table, or CSV with --csv), the run header as '#' lines (stderr with --csv),
// progress on stderr, everything in --json FILE.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bench/benchmark.hpp"
#include "bench/report.hpp"
#include "cli/bench_options.hpp"
#include "kernels/dslash_kernel.hpp"

namespace dslash::cli {

namespace {

#if defined(DSLASH_HAVE_CUDA)
// The GPU in the header and the JSON (meta and every result), and its L2 as the cache that rotating
// input sets must outgrow.
void describe_gpu(bench::RunInfo& run) {
  const cuda::DeviceInfo g = cuda::device_info();
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  run.llc = {g.l2_bytes, "the GPU's L2", 1};
  run.notes.push_back("gpu " + g.name + ": " + std::to_string(g.multiprocessors) + " SMs, compute " + std::to_string(g.compute_major) + "." +
                      std::to_string(g.compute_minor) + ", " + format_bytes(g.memory_bytes) + ", L2 " + format_bytes(g.l2_bytes) + ", driver " +
                      version(g.driver_version) + ", runtime " + version(g.runtime_version) + "; times from CUDA events");
  run.extra["gpu"] = {{"name", g.name}, {"multiprocessors", g.multiprocessors}, {"compute_capability", std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor)},
                      {"memory_bytes", g.memory_bytes}, {"l2_bytes", g.l2_bytes}, {"driver", version(g.driver_version)}, {"runtime", version(g.runtime_version)}};
}
#endif

// Space: HostSpace runs the CPU kernels, CudaSpace the GPU's (--backend cuda).
template <class Real, class Space>
int run_bench(const BenchOptions& o) {
  constexpr bool kDevice = !Space::host_accessible;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const Geometry geom(o.dims);
  const SimdIsa isa = kDevice ? SimdIsa::Simt : simd_isa(o.k.simd);
  const int F = sizeof(Real);
  const auto kernels = expand(o.kernel, {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode});
  const auto dispatches = expand(o.k.dispatch, {Dispatch::Range, Dispatch::Team, Dispatch::MDRange});
  const std::array<index_t, 4> user_tile = o.k.tile.value_or(DslashConfig{}.tile);
  // A GPU team is a block: one warp by default.
  const int user_team = o.k.team_size > 0 ? o.k.team_size : (kDevice ? 32 : 1);

  bench::RunInfo run = run_info(o, isa, F);  // the header comes after the run, with its final ceilings
  run.where = "lattice " + geom.to_string();
  run.sites_per_parity = geom.half_volume();
  run.footprint_bytes = bench::footprint_bytes<Real>(geom, o.k.compress);
  run.extra["backend"] = kDevice ? "cuda" : "cpu";
  if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
    run.isas = {SimdIsa::Simt};
    describe_gpu(run);
#endif
  } else {
    run.llc = bench::last_level_cache();  // a bad DSLASH_LLC_BYTES is refused here, first
  }

  // Every variant checked as its kernel will check it, before anything is measured: an error the
  // options decide is one line at once, not the last of several after the ceilings.
  std::vector<bench::VariantRequest> requests;
  std::vector<std::string> skipped;
  for (const auto& k : kernels)
    for (const auto& disp : dispatches) {
      bench::VariantRequest req;
      req.cfg = variant_config(o, k, disp, isa, F);
      req.cfg.tile = user_tile;
      req.cfg.team_size = user_team;
      req.tune_tile = req.cfg.dispatch == Dispatch::MDRange && o.k.tune_tile;
      req.tune_team = req.cfg.dispatch == Dispatch::Team && o.k.tune_team_size;
      try {
        (void)DslashKernel<Real, Space>::check_config(geom, req.cfg);
        requests.push_back(req);
      } catch (const std::invalid_argument& e) {
        if (o.kernel) throw;
        skipped.push_back(e.what());
      }
    }
  if (requests.empty()) throw std::invalid_argument(skipped.front() + " (and no other variant can run either)");
  for (const auto& s : skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());

  std::unique_ptr<bench::TuneCache> cache;
  if (o.k.tune_tile || o.k.tune_team_size) {
    cache = std::make_unique<bench::TuneCache>(bench::TuneCache::default_path());
    if (cache->writable()) std::fprintf(stderr, "tune cache: %s (%zu entries)\n", cache->path().c_str(), cache->size());
    else cache.reset();  // not a tune cache: its warning said so, and the run tunes without one
  }
  // The gauge field before the ceilings too: a lattice too large for memory fails at once.
  bench::Benchmark<Real, Space> bench(
      geom, {.iters = o.iters, .warmup = o.warmup, .check = o.check, .traffic = o.traffic, .seed = o.seed, .llc_bytes = run.llc.share()}, cache.get());

  if (kDevice) std::fprintf(stderr, "measuring ceilings on the GPU (device triad and copy, FMA loop)...\n");
  else std::fprintf(stderr, "measuring ceilings (STREAM triad, FMA loop on %s) with %d threads...\n", to_string(isa), run.threads);
  bench::BenchRun<bench::VariantResult> b{run, bench::Ceilings(run.llc, kDevice), {}, skipped};
  b.ceilings.measure_round(run.isas, F);
  if (!kDevice && (!std::getenv("OMP_PROC_BIND") || !std::getenv("OMP_PLACES")))
    std::fprintf(stderr, "warning: OMP_PROC_BIND/OMP_PLACES unset: threads may migrate; for stable numbers export OMP_PROC_BIND=close OMP_PLACES=cores\n");

  bench::run_variants<std::invalid_argument>(
      b, requests, !o.kernel, true, 1, [&](const bench::VariantRequest& request) { return bench.run(request); }, [] {});
  bench::check_footprints(b.run, b.results);
  const auto& results = b.results;

  // The header: what ran where, and both roofline ceilings, measured in this run with these threads.
  bench::print_header(o.csv ? stderr : stdout, b.run, b.ceilings);
  if (o.csv) {
    std::printf("%s\n", bench::csv_columns(o.traffic).c_str());
    for (const auto& r : results) std::printf("%s\n", bench::csv_row(r, b.run, o.traffic).c_str());
  } else {
    std::printf("%-6s %-8s %-7s %5s %-14s %9s %9s %9s %9s %9s %9s %7s%s\n", "kernel", "dispatch", "simd", "nrhs", "launch", "min ms",
                "median ms", "max ms", "GFLOP/s", "GB/s mdl", "roof", "% roof", o.traffic ? "   traffic  % roof  % trfc" : "");
    for (const auto& r : results) {
      char launch[64];
      if (r.cfg.dispatch == Dispatch::MDRange)
        std::snprintf(launch, sizeof launch, "%lld.%lld.%lld.%lld%s", static_cast<long long>(r.cfg.tile[0]), static_cast<long long>(r.cfg.tile[1]),
                      static_cast<long long>(r.cfg.tile[2]), static_cast<long long>(r.cfg.tile[3]), r.tile_source == "default" ? "" : "*");
      else if (r.cfg.dispatch == Dispatch::Team)
        std::snprintf(launch, sizeof launch, "team %d/%lld%s%s", r.cfg.team_size, static_cast<long long>(r.cfg.sites_per_team),
                      r.block_z > 0 ? (" z" + std::to_string(r.block_z)).c_str() : "", r.tile_source == "default" ? "" : "*");
      else std::snprintf(launch, sizeof launch, "-");
      std::printf("%-6s %-8s %-7s %5d %-14s %9.3f %9.3f %9.3f %9.2f %9.2f %9.2f %6.1f%%", to_string(r.cfg.kernel), to_string(r.cfg.dispatch),
                  to_string(r.cfg.isa), r.cfg.nrhs, launch, 1e3 * r.time_min, 1e3 * r.time_median, 1e3 * r.time_max, r.gflops,
                  r.gbytes_model, r.roofline_gflops, r.percent_of_roofline);
      if (o.traffic)
        std::printf(" %9.2f %6.1f%% %6.1f%%", r.traffic_gflops, 100.0 * r.traffic_gflops / r.roofline_gflops, 100.0 * r.gflops / r.traffic_gflops);
      std::printf("\n");
    }
    if (o.traffic)
      std::printf("# traffic: the kernel's loads and stores alone, in its order, one add per load and no Dslash (GFLOP/s at 1320 per "
                  "site, timed by the same rule); %% trfc: the kernel's rate as a share of it, near 100%% where its loads and stores, "
                  "not its arithmetic, set its time\n");
    if (o.k.tune_tile || o.k.tune_team_size) std::printf("# * launch shape from the tuner or the tune cache\n");
    for (const auto& s : b.skipped) std::printf("# skipped: %s\n", s.c_str());
  }
  for (const auto& r : results)
    if (r.spread > 0.10)
      std::fprintf(stderr, "warning: %s timings spread %.0f%% (median vs best): the machine was noisy; rerun before acting on it\n",
                   r.label.c_str(), 100 * r.spread);

  if (!o.json.empty()) write_run_json(o.json, b, [](const bench::VariantResult&) { return nlohmann::json::object(); });

  return bench::report_checks(results, o.check);
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
  add_team_size_option(*cmd, o->k, true, "threads per team, or auto to tune (and cache) it");
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
