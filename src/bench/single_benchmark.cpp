// The benchmark in one process: single_benchmark.hpp says what it measures and reports.
#include "bench/single_benchmark.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "kernels/dslash_kernel.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::bench {

namespace {

#if defined(DSLASH_HAVE_CUDA)
// The GPU in the header and the JSON (meta and every result), and its L2 as the cache that rotating
// input sets must outgrow.
void describe_gpu(RunInfo& run) {
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

// The table's launch column: the tile of an mdrange launch, the team shape (and traversal block) of
// a team launch; '*' where the tuner or the tune cache chose it.
std::string launch_text(const VariantResult& r) {
  const std::string chosen = r.tile_source == "default" ? "" : "*";
  if (r.cfg.dispatch == Dispatch::MDRange) return tile_text(r.cfg.tile) + chosen;
  if (r.cfg.dispatch == Dispatch::Team)
    return "team " + std::to_string(r.cfg.team_size) + "/" + std::to_string(r.cfg.sites_per_team) +
           (r.block_z > 0 ? " z" + std::to_string(r.block_z) : "") + chosen;
  return "-";
}

void print_table(const SingleBenchRun& b) {
  std::printf("%-6s %-8s %-7s %5s %-14s %9s %9s %9s %9s %9s %9s %7s%s\n", "kernel", "dispatch", "simd", "nrhs", "launch", "min ms", "median ms",
              "max ms", "GFLOP/s", "GB/s mdl", "roof", "% roof", b.traffic ? "   traffic  % roof  % trfc" : "");
  for (const auto& r : b.results) {
    std::printf("%-6s %-8s %-7s %5d %-14s %9.3f %9.3f %9.3f %9.2f %9.2f %9.2f %6.1f%%", to_string(r.cfg.kernel), to_string(r.cfg.dispatch),
                to_string(r.cfg.isa), r.cfg.nrhs, launch_text(r).c_str(), 1e3 * r.time_min, 1e3 * r.time_median, 1e3 * r.time_max, r.gflops,
                r.gbytes_model, r.roofline_gflops, r.percent_of_roofline);
    if (b.traffic)
      std::printf(" %9.2f %6.1f%% %6.1f%%", r.traffic_gflops, 100.0 * r.traffic_gflops / r.roofline_gflops, 100.0 * r.gflops / r.traffic_gflops);
    std::printf("\n");
  }
  if (b.traffic)
    std::printf("# traffic: the kernel's loads and stores alone, in its order, one add per load and no Dslash (GFLOP/s at 1320 per "
                "site, timed by the same rule); %% trfc: the kernel's rate as a share of it, near 100%% where its loads and stores, "
                "not its arithmetic, set its time\n");
  if (b.tuned) std::printf("# * launch shape from the tuner or the tune cache\n");
  for (const auto& s : b.skipped) std::printf("# skipped: %s\n", s.c_str());
}

}  // namespace

template <class Real, class Space>
SingleBenchRun run_single_benchmark(const SingleBenchConfig& c) {
  constexpr bool kDevice = !Space::host_accessible;
  const Geometry geom(c.run.lattice);
  RunInfo run = c.run;  // the header comes after the run, with its final ceilings
  run.where = "lattice " + geom.to_string();
  run.sites_per_parity = geom.half_volume();
  run.footprint_bytes = footprint_bytes<Real>(geom, run.compress);
  run.extra["backend"] = kDevice ? "cuda" : "cpu";
  if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
    run.isas = {SimdIsa::Simt};
    describe_gpu(run);
#endif
  } else {
    run.llc = last_level_cache();  // a bad DSLASH_LLC_BYTES is refused here, first
  }

  // Every variant checked as its kernel will check it, before anything is measured: an error the
  // options decide is one line at once, not the last of several after the ceilings.
  std::vector<VariantRequest> requests;
  std::vector<std::string> skipped;
  for (const VariantRequest& request : c.variants) {
    try {
      (void)DslashKernel<Real, Space>::check_config(geom, request.cfg);
      requests.push_back(request);
    } catch (const std::invalid_argument& e) {
      if (!c.skip_refused) throw;
      skipped.push_back(e.what());
    }
  }
  if (requests.empty()) throw std::invalid_argument(skipped.front() + " (and no other variant can run either)");
  for (const auto& s : skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());

  const bool tunes = std::any_of(requests.begin(), requests.end(), [](const VariantRequest& r) { return r.tune_tile || r.tune_team; });
  std::unique_ptr<TuneCache> cache;
  if (tunes) {
    cache = std::make_unique<TuneCache>(TuneCache::default_path());
    if (cache->writable()) std::fprintf(stderr, "tune cache: %s (%zu entries)\n", cache->path().c_str(), cache->size());
    else cache.reset();  // not a tune cache: its warning said so, and the run tunes without one
  }
  // The gauge field before the ceilings too: a lattice too large for memory fails at once.
  BenchSettings settings = c.settings;
  settings.llc_bytes = run.llc.share();
  Benchmark<Real, Space> bench(geom, settings, cache.get());

  if (kDevice) std::fprintf(stderr, "measuring ceilings on the GPU (device triad and copy, FMA loop)...\n");
  else std::fprintf(stderr, "measuring ceilings (STREAM triad, FMA loop on %s) with %d threads...\n", to_string(run.isa), run.threads);
  SingleBenchRun b({run, Ceilings(run.llc, kDevice), {}, skipped});
  b.ceilings.measure_round(run.isas, run.bytes_per_real);
  if (!kDevice && (!std::getenv("OMP_PROC_BIND") || !std::getenv("OMP_PLACES")))
    std::fprintf(stderr, "warning: OMP_PROC_BIND/OMP_PLACES unset: threads may migrate; for stable numbers export OMP_PROC_BIND=close OMP_PLACES=cores\n");

  run_variants<std::invalid_argument>(
      b, requests, c.skip_refused, true, 1, [&](const VariantRequest& request) { return bench.run(request); }, [] {});
  check_footprints(b.run, b.results);
  b.traffic = settings.traffic;
  b.tuned = tunes;
  b.check = settings.check;
  return b;
}

int report(const SingleBenchRun& b, const ReportOptions& o) {
  // The header: what ran where, and both roofline ceilings, measured in this run with these threads.
  print_header(o.csv ? stderr : stdout, b.run, b.ceilings);
  if (o.csv) {
    std::printf("%s\n", csv_columns(b.traffic).c_str());
    for (const auto& r : b.results) std::printf("%s\n", csv_row(r, b.run, b.traffic).c_str());
  } else {
    print_table(b);
  }
  for (const auto& r : b.results)
    if (r.spread > 0.10)
      std::fprintf(stderr, "warning: %s timings spread %.0f%% (median vs best): the machine was noisy; rerun before acting on it\n",
                   r.label.c_str(), 100 * r.spread);
  if (!o.json.empty()) write_run_json(o.json, b, [](const VariantResult&) { return nlohmann::json::object(); });
  return report_checks(b.results, b.check);
}

template SingleBenchRun run_single_benchmark<float, HostSpace>(const SingleBenchConfig&);
template SingleBenchRun run_single_benchmark<double, HostSpace>(const SingleBenchConfig&);
#if defined(DSLASH_HAVE_CUDA)
template SingleBenchRun run_single_benchmark<float, CudaSpace>(const SingleBenchConfig&);
template SingleBenchRun run_single_benchmark<double, CudaSpace>(const SingleBenchConfig&);
#endif

}  // namespace dslash::bench
