// dslash bench under mpirun: every kernel x dispatch on the global lattice split over the ranks'
// process grid, with halo exchange. Rank 0 prints; the others only compute and communicate.
//   per call : the slowest rank's wall time (a barrier starts every call)
//   GFLOP/s  : total = 1320 x global sites x nrhs / best call; per rank = total / ranks
//   comm     : projecting faces + waiting for halos; compute: interior kernel + boundary completion
//              (per call, the slowest rank's, averaged over the timed calls)
//   halo     : bytes each rank sends per call, and their rate in an exchange-only loop
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "bench/metrics.hpp"
#include "bench/report.hpp"
#include "bench/rotating_spinors.hpp"
#include "cli/bench_options.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_dslash.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::cli {

namespace {

// A variant's figures as every bench reports them (times per call, slowest rank; rates of all ranks
// together), and what only a run over ranks has.
struct MpiResult : bench::VariantResult {
  double gflops_per_rank = 0;
  double comm_s = 0, compute_s = 0, halo_GBs = 0;
  double project_s = 0, interior_s = 0, wait_s = 0, complete_s = 0;  // the phases of comm and compute
  std::uint64_t halo_bytes = 0, halo_bytes_expected = 0;
  std::vector<double> rank_gflops;  // each rank's own rate: local flops / its own best call
};

nlohmann::json mpi_fields(const MpiResult& r) {
  return {{"gflops_per_rank", r.gflops_per_rank}, {"rank_gflops", r.rank_gflops}, {"comm_s", r.comm_s}, {"compute_s", r.compute_s},
          {"project_s", r.project_s}, {"interior_s", r.interior_s}, {"wait_s", r.wait_s}, {"complete_s", r.complete_s},
          {"halo_bytes_per_rank", r.halo_bytes}, {"halo_bytes_expected", r.halo_bytes_expected}, {"halo_GBs", r.halo_GBs}};
}

// Ranks that share this rank's node (and its last-level cache).
int ranks_per_node(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

double reduce_max(double v, MPI_Comm comm) {
  double r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm);
  return r;
}

template <class Real>
MpiResult run_variant(const mpi::ProcessGrid& grid, const GaugeField<Real>& u, const std::optional<GaugeField<Real>>& u_global,
                      const DslashConfig& request, const BenchOptions& o, const bench::CacheInfo& llc) {
  const bool root = grid.rank() == 0;
  mpi::HaloDslash<Real> d(grid, u, request);
  MpiResult r;
  r.cfg = d.kernel().config();
  r.label = d.kernel().label();
  r.lanes = d.kernel().layout().lanes;
  if (r.cfg.dispatch == Dispatch::MDRange && request.tile != DslashConfig{}.tile) r.tile_source = "user";
  const Subset in_subset = d.in_subset();

  // The inputs of a single-process run (same seeds, global lattice), scattered.
  std::vector<SpinorField<Real>> in_global, in;
  for (int k = 0; k < r.cfg.nrhs; ++k) {
    std::optional<SpinorField<Real>> g;
    if (root) {
      SpinorField<Real> full(grid.global(), Subset::Full, "bench_in_global");
      fill_gaussian(full, o.seed + 100 + static_cast<std::uint64_t>(k));
      g.emplace(grid.global(), in_subset, "bench_in_global");
      copy_sites(full, *g);
    }
    in.push_back(mpi::scatter(grid, g ? &*g : nullptr, in_subset));
    if (g) in_global.push_back(std::move(*g));
  }
  // As in one process, a working set that fits in the cache rotates through several input/output
  // sets; the ranks on a node share its last-level cache.
  r.rotating_sets = bench::rotating_sets(llc.share(), d.kernel().link_bytes(), 2 * d.kernel().spinor_bytes());
  r.call_bytes = d.kernel().link_bytes() + 2 * d.kernel().spinor_bytes();
  bench::RotatingSpinors<Real> sets(d.kernel(), in, r.rotating_sets);
  const auto apply_next = [&] {
    const std::size_t k = sets.advance();
    d.apply(sets.in[k], sets.out[k], o.mpi.overlapped());
  };

  const auto timed = [&](auto&& call) {
    MPI_Barrier(grid.comm());
    const double t0 = MPI_Wtime();
    call();
    const double mine = MPI_Wtime() - t0;
    return std::pair{mine, reduce_max(mine, grid.comm())};
  };
  for (int i = 0; i < o.warmup; ++i) timed(apply_next);
  d.reset_times();
  double my_best = 1e30;
  for (int i = 0; i < o.iters; ++i) {
    const auto [mine, slowest] = timed(apply_next);
    my_best = std::min(my_best, mine);
    r.times.push_back(slowest);
  }
  const mpi::HaloTimes& t = d.times();
  r.comm_s = reduce_max(t.comm() / t.calls, grid.comm());
  r.compute_s = reduce_max(t.compute() / t.calls, grid.comm());
  r.project_s = reduce_max(t.project / t.calls, grid.comm());
  r.interior_s = reduce_max(t.interior / t.calls, grid.comm());
  r.wait_s = reduce_max(t.wait / t.calls, grid.comm());
  r.complete_s = reduce_max(t.complete / t.calls, grid.comm());

  double halo_best = 1e30;
  for (int i = 0; i < std::max(3, o.iters); ++i) halo_best = std::min(halo_best, timed([&] { d.exchange(sets.in[0]); }).second);
  r.halo_bytes = d.halo_bytes();
  for (int mu = 0; mu < 4; ++mu)
    if (grid.split(mu))  // 12 reals x face sites x 2 faces, per split direction
      r.halo_bytes_expected += 2ull * 12 * sizeof(Real) * static_cast<std::uint64_t>(r.cfg.nrhs) *
                               static_cast<std::uint64_t>(grid.local().volume() / grid.local().extent(mu) / (r.cfg.out == Subset::Full ? 1 : 2));
  r.halo_GBs = r.halo_bytes > 0 ? static_cast<double>(r.halo_bytes) / halo_best / 1e9 : 0;

  const bench::TimeSummary summary = bench::summarize_times(r.times);
  r.time_min = summary.min;
  r.time_median = summary.median;
  r.time_max = summary.max;
  r.spread = summary.spread;

  const bool cb = r.cfg.out != Subset::Full;
  const bench::ByteModel bytes = bench::bytes_per_site(cb, sizeof(Real), r.cfg.kernel == KernelFamily::Mrhs ? r.cfg.nrhs : 1);
  const double local_site_rhs = static_cast<double>(d.kernel().output_sites()) * r.cfg.nrhs;
  r.gflops = bench::kFlopsPerSite * local_site_rhs * grid.size() / r.time_min / 1e9;
  r.gflops_per_rank = r.gflops / grid.size();
  r.gbytes_model = bytes.model * local_site_rhs * grid.size() / r.time_min / 1e9;
  r.compulsory_bytes = bytes.compulsory;
  const double mine = bench::kFlopsPerSite * local_site_rhs / my_best / 1e9;
  r.rank_gflops.resize(static_cast<std::size_t>(grid.size()));
  MPI_Gather(&mine, 1, MPI_DOUBLE, r.rank_gflops.data(), 1, MPI_DOUBLE, 0, grid.comm());

  if (o.check) {  // the gathered result against the single-process reference, on rank 0
    std::vector<SpinorField<Real>> out, got;
    d.kernel().unpack(sets.out[sets.last()], out);
    for (const auto& local : out) {
      std::optional<SpinorField<Real>> global = mpi::gather(grid, local);
      if (global) got.push_back(std::move(*global));
    }
    if (root) r.check = bench::check_against_reference(*u_global, in_global, got, r.cfg.dagger);
  }
  return r;
}

template <class Real>
int run(const BenchOptions& o) {
  if (o.threads > 0) omp_set_num_threads(o.threads);
  if (o.tile == "auto" || o.team_size == "auto")
    throw std::invalid_argument("--tile/--team-size auto tune in one process: tune on the local lattice without --mpi, then pass the result");
  const mpi::ProcessGrid grid(mpi::parse_grid(o.mpi.grid), o.dims);
  const bool root = grid.rank() == 0;
  const int F = sizeof(Real);
  const SimdIsa isa = parse_simd(o.simd);
  const auto kernels = expand(o.kernel, {"naive", "mrhs", "vnode"});
  const auto dispatches = expand(o.dispatch, {"range", "team", "mdrange"});
  const std::array<index_t, 4> tile = o.tile.empty() ? DslashConfig{}.tile : parse_tile(o.tile);
  const int team = o.team_size.empty() ? 1 : std::stoi(o.team_size);  // the parser took only 1..max

  bench::RunInfo run = run_info(o, isa, F);  // the header comes after the run, with its final ceilings
  const bool overlap = o.mpi.overlapped();
  run.title = "dslash bench over MPI";
  run.where = grid.describe();
  run.distributed = true;
  run.sites_per_parity = grid.local().half_volume();
  run.footprint_bytes = bench::footprint_bytes<Real>(grid.local());
  run.llc = bench::last_level_cache(ranks_per_node(grid.comm()));  // the ranks on a node share its cache
  run.notes = {std::string("comms overlap ") + (overlap ? "on" : "off") + "; comm/compute per call, slowest rank"};
  run.extra = {{"local_lattice", grid.local().extents()}, {"grid", grid.grid()}, {"ranks", grid.size()},
               {"threads_per_rank", run.threads}, {"comms_overlap", overlap}};
  // Every rank measures at once, as they run: the ceilings are one rank's share of the node.
  if (root) std::fprintf(stderr, "measuring ceilings on every rank at once (%d threads each)...\n", run.threads);
  MPI_Barrier(grid.comm());
  bench::Ceilings ceilings(run.llc);
  ceilings.measure_round(run.isas, F);
  std::optional<GaugeField<Real>> u_global;
  if (root) {
    u_global.emplace(grid.global(), "bench_gauge_global");
    fill_random_su3(*u_global, o.seed);  // the same field as a single-process run
  }
  const GaugeField<Real> u = mpi::scatter(grid, u_global ? &*u_global : nullptr);

  std::vector<MpiResult> results;
  std::vector<std::string> skipped;
  for (const auto& k : kernels)
    for (const auto& disp : dispatches) {
      DslashConfig cfg = variant_config(o, k, disp, isa, F);
      if (cfg.dispatch == Dispatch::MDRange) cfg.tile = tile;
      if (cfg.dispatch == Dispatch::Team) cfg.team_size = team;
      if (root) std::fprintf(stderr, "[%zu/%zu] %s %s...\n", results.size() + skipped.size() + 1, kernels.size() * dispatches.size(), k.c_str(), disp.c_str());
      try {
        results.push_back(run_variant<Real>(grid, u, u_global, cfg, o, run.llc));
        MPI_Barrier(grid.comm());  // every rank measures its next round at once, as at the start
        ceilings.measure_round(run.isas, F);
      } catch (const mpi::CollectiveError& e) {  // every rank agrees, so every rank skips
        if (o.kernel != "all") throw;
        skipped.push_back(e.what());
        if (root) std::fprintf(stderr, "  skipped: %s\n", e.what());
      }
    }
  for (MpiResult& r : results) bench::rate_against(r, ceilings, grid.size());  // the run's best ceilings, per rank
  int step = 4;  // a suggested lattice splits over the grid into domains every kernel can fold
  for (int mu = 0; mu < 4; ++mu) step = std::lcm(step, 4 * grid.grid()[static_cast<std::size_t>(mu)]);
  bench::check_footprints(run, results, step, grid.size());

  // Rank 0 reports; a failure there (an unwritable --json) is every rank's error.
  int status = 0;
  mpi::collectively([&] {
  if (!root) return;
  bench::print_header(o.csv ? stderr : stdout, run, ceilings);
  if (o.csv) {
    std::printf("%s,local_lattice,grid,ranks,comms_overlap,gflops_per_rank,comm_s,compute_s,halo_bytes_per_rank,halo_GBs\n",
                bench::csv_columns(false).c_str());
    for (const auto& r : results)
      std::printf("%s,%s,%s,%d,%s,%.3f,%.6e,%.6e,%llu,%.3f\n", bench::csv_row(r, run, false).c_str(), grid.local().to_string().c_str(),
                  mpi::grid_text(grid.grid()).c_str(), grid.size(), overlap ? "on" : "off", r.gflops_per_rank, r.comm_s, r.compute_s,
                  static_cast<unsigned long long>(r.halo_bytes), r.halo_GBs);
  } else {
    std::printf("%-6s %-8s %-7s %5s %9s %9s %11s %11s %7s %9s %9s %9s %9s\n", "kernel", "dispatch", "simd", "nrhs", "min ms", "median ms",
                "GF/s total", "GF/s rank", "% roof", "comm ms", "comp ms", "halo KB", "halo GB/s");
    for (const auto& r : results)
      std::printf("%-6s %-8s %-7s %5d %9.3f %9.3f %11.2f %11.2f %6.1f%% %9.3f %9.3f %9.1f %9.2f\n", to_string(r.cfg.kernel),
                  to_string(r.cfg.dispatch), to_string(r.cfg.isa), r.cfg.nrhs, 1e3 * r.time_min, 1e3 * r.time_median, r.gflops,
                  r.gflops_per_rank, r.percent_of_roofline, 1e3 * r.comm_s, 1e3 * r.compute_s, static_cast<double>(r.halo_bytes) / 1024.0, r.halo_GBs);
    std::printf("# halo KB: sent per rank per call = 12 reals x face sites x 2 faces x split directions (x nrhs)\n");
    for (const auto& s : skipped) std::printf("# skipped: %s\n", s.c_str());
  }

  if (!o.json.empty()) {
    nlohmann::json json_results = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json e = bench::result_json(r, run);
      e.update(mpi_fields(r));
      json_results.push_back(e);
    }
    bench::write_json(o.json, bench::run_json(run, ceilings, json_results, skipped));
  }

  status = bench::report_checks(results, o.check, " over " + mpi::grid_text(grid.grid()));
  }, grid.comm());
  MPI_Bcast(&status, 1, MPI_INT, 0, grid.comm());  // only rank 0 checks: mpirun sees its verdict from every rank
  return status;
}

}  // namespace

int run_bench_mpi(const BenchOptions& o) { return o.prec == "single" ? run<float>(o) : run<double>(o); }

}  // namespace dslash::cli
