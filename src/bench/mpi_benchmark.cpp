// The benchmark over MPI ranks: mpi_benchmark.hpp says what it measures and how.
#include "bench/mpi_benchmark.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "bench/metrics.hpp"
#include "bench/rotating_spinors.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/cache_policy.hpp"
#include "kernels/dslash_kernel.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/mpi_session.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#include "mpi/gpu_ranks.hpp"
#endif

namespace dslash::bench {

namespace {

OverRanks over_ranks(const std::vector<double>& per_call, MPI_Comm comm) {
  const double mine = summarize_times(per_call).median;
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<double> all(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
  const TimeSummary s = summarize_times(all);
  return {s.min, s.median, s.max};
}

nlohmann::json mpi_fields(const MpiResult& r) {
  nlohmann::json stages = nlohmann::json::array();
  for (const Stage& s : r.stages) stages.push_back({{"stage", s.name}, {"min_s", s.seconds.min}, {"median_s", s.seconds.median}, {"max_s", s.seconds.max}});
  return {{"gflops_per_rank", r.gflops_per_rank}, {"rank_gflops", r.rank_gflops}, {"comm_s", r.comm_s}, {"compute_s", r.compute_s},
          {"stages", stages},
          // interleaved: control times_s[i] ran next to the decomposed call times_s[i]
          {"control", {{"time_min_s", r.control_min}, {"time_median_s", r.control_median}, {"times_s", r.control_times},
                       {"gflops_per_rank", r.control_gflops_per_rank}, {"overhead", r.overhead}, {"interleaved", true}}},
          {"halo_transport", r.transport}, {"halo_complete", r.completion}, {"halo_bytes_per_rank", r.halo_bytes}, {"halo_bytes_expected", r.halo_bytes_expected}, {"halo_messages_per_rank", r.messages},
          {"halo_GBs", r.halo_GBs}, {"exchange_only_GBs", r.exchange_only_GBs}, {"halo_percent_of_exchange_only", r.halo_percent}};
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

// Every call of a bench starts at a barrier and is timed to the slowest rank.
struct CallTimer {
  explicit CallTimer(MPI_Comm c) : comm(c) {}
  MPI_Comm comm;
  double my_best = 1e30;
  std::vector<double> slowest;
  void operator()(const std::function<void()>& call, bool record = true) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    call();
    const double mine = MPI_Wtime() - t0;
    const double all = reduce_max(mine, comm);
    if (!record) return;
    my_best = std::min(my_best, mine);
    slowest.push_back(all);
  }
};

// The stages of HaloDslash::apply, per direction where they have one, over the ranks.
// transport (HaloDslash::transport): the GPU's copies too, staged or to the peers.
// completion (HaloDslash::completion): "kernel" has no complete stage (the interior adds the halo).
std::vector<Stage> stage_figures(const mpi::ProcessGrid& grid, const std::vector<mpi::HaloCallTimes>& calls, std::string_view transport,
                                 std::string_view completion) {
  const bool staged = transport == "staged", peer = transport == "peer";
  std::vector<Stage> stages;
  const auto add = [&](std::string name, const std::function<double(const mpi::HaloCallTimes&)>& pick) {
    std::vector<double> v;
    for (const auto& c : calls) v.push_back(pick(c));
    stages.push_back({std::move(name), over_ranks(v, grid.comm())});
  };
  static constexpr const char* kDir[4] = {"x", "y", "z", "t"};
  const auto per_direction = [&](const char* stage, auto member) {  // both hops of a direction: one launch
    for (std::size_t mu = 0; mu < 4; ++mu)
      if (grid.split(static_cast<int>(mu))) add(std::string(stage) + " " + kDir[mu], [=](const mpi::HaloCallTimes& c) { return (c.*member)[mu]; });
  };
  const bool gpu = staged || peer;
  if (gpu) per_direction("project", &mpi::HaloCallTimes::project);
  else add("project", [](const auto& c) { return c.project_all; });  // every face in one launch
  if (gpu) add(staged ? "copy to host" : "to peers", [](const auto& c) { return c.send_out; });
  add("post", [](const auto& c) { return c.post; });
  add("interior", [](const auto& c) { return c.interior; });
  add("progress", [](const auto& c) { return c.progress; });
  add("wait", [](const auto& c) { return c.wait; });
  if (staged) add("copy to device", [](const auto& c) { return c.bring_in; });
  if (completion != "kernel") per_direction("complete", &mpi::HaloCallTimes::complete);
  add("call", [](const auto& c) { return c.call; });
  add("transfer", [](const auto& c) { return c.transfer; });
  if (staged || peer) {  // the GPU's timeline (HaloCallTimes::Timeline)
    add("at: faces out (GPU)", [](const auto& c) { return c.at.faces_out; });
    add("at: interior done (GPU)", [](const auto& c) { return c.interior; });
    if (std::any_of(calls.begin(), calls.end(), [](const auto& c) { return c.at.boundary_done > 0; }))
      add("at: boundary t done (GPU)", [](const auto& c) { return c.at.boundary_done; });
    if (completion != "kernel") add("at: complete done (GPU)", [](const auto& c) { return c.at.complete_done; });
    // Peer: the host waits for nothing, so its faces are only queued (mpi/peer_halo.hpp).
    add(peer ? "at: faces queued (host)" : "at: faces out (host)", [](const auto& c) { return c.at.host_faces_out; });
    add("at: notices in (host)", [](const auto& c) { return c.at.host_notices_in; });
    add("at: complete launched (host)", [](const auto& c) { return c.at.host_complete_launched; });
  }
  return stages;
}

double sum_of(const mpi::HaloCallTimes& c, bool comm) {
  double s = comm ? c.project_all + c.post + c.wait + c.send_out + c.bring_in : c.interior + c.progress;
  for (double per_mu : comm ? c.project : c.complete) s += per_mu;
  return s;
}

template <class Real, class Space>
MpiResult run_variant(const mpi::ProcessGrid& grid, const GaugeField<Real>& u, const std::optional<GaugeField<Real>>& u_global,
                      const DslashConfig& request, const MpiBenchConfig& o, const CacheInfo& llc) {
  const bool root = grid.rank() == 0;
  const mpi::Progress progress = o.progress;
  constexpr bool kDevice = !Space::host_accessible;
  mpi::HaloDslash<Real, Space> d(grid, u, with_host_cache_policy<Real, Space>(request, grid.local()), o.halo);
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
      fill_gaussian(full, o.settings.seed + 100 + static_cast<std::uint64_t>(k));
      g.emplace(grid.global(), in_subset, "bench_in_global");
      copy_sites(full, *g);
    }
    in.push_back(mpi::scatter(grid, g ? &*g : nullptr, in_subset));
    if (g) in_global.push_back(std::move(*g));
  }
  // As in one process, a working set that fits in the cache rotates through several input/output
  // sets; the ranks on a node share its last-level cache.
  r.rotating_sets = rotating_sets(llc.share(), d.kernel().link_bytes(), 2 * d.kernel().spinor_bytes());
  r.call_bytes = d.kernel().link_bytes() + 2 * d.kernel().spinor_bytes();
  RotatingSpinors<Real, Space> sets(d.kernel(), in, r.rotating_sets, [&](const std::string& label) { return d.allocate_spinors(label); });

  CallTimer decomposed{grid.comm()};
  const auto apply_next = [&] {
    const std::size_t k = sets.advance();
    d.apply(sets.in[k], sets.out[k], progress);
  };
  // The no-halo control: the single-process kernel on the same local lattice, periodic, every rank
  // at once, its calls interleaved with the decomposed ones (one of each in turn, which goes first
  // alternating), so that both see the machine in the same state: a control timed after all the
  // decomposed calls made the overhead swing with the host's slow phases (docs/history/HISTORY.md,
  // "The no-halo control between the decomposed calls").
  DslashConfig control_cfg = r.cfg;
  control_cfg.halo = {};
  const DslashKernel<Real, Space> control(u, control_cfg);
  RotatingSpinors<Real, Space> control_sets(control, in, r.rotating_sets);
  CallTimer control_timer{grid.comm()};
  const auto control_next = [&] {
    const std::size_t k = control_sets.advance();
    control.apply(control_sets.in[k], control_sets.out[k]);
    if constexpr (kDevice) Space::execution_space::fence();  // a GPU launch returns at once
  };
  const auto both = [&](int i, bool record) {
    if (i % 2 == 0) decomposed(apply_next, record), control_timer(control_next, record);
    else control_timer(control_next, record), decomposed(apply_next, record);
  };
  // GPU ranks: the timed calls record no stage events (they lengthen the host's path of a call);
  // the stages come from as many calls of their own, with the events.
  if constexpr (kDevice) d.time_stages(false);
  for (int i = 0; i < o.settings.warmup; ++i) both(i, false);
  d.reset_times();
  for (int i = 0; i < o.settings.iters; ++i) both(i, true);
  record_times(r, decomposed.slowest);
  r.control_times = control_timer.slowest;
  if constexpr (kDevice) {
    d.time_stages(true);
    d.reset_times();
    CallTimer with_events{grid.comm()};  // a barrier before each call, as for the timed ones
    for (int i = 0; i < o.settings.iters; ++i) with_events(apply_next);
    d.time_stages(false);  // and the halo's exchange below without them, as the ceiling it is rated against
  }
  r.transport = d.transport();
  r.completion = d.completion(progress);
  r.stages = stage_figures(grid, d.times(), r.transport, r.completion);
  std::vector<double> comm, compute;
  for (const auto& c : d.times()) comm.push_back(sum_of(c, true)), compute.push_back(sum_of(c, false));
  r.comm_s = over_ranks(comm, grid.comm()).max;
  r.compute_s = over_ranks(compute, grid.comm()).max;

  // The halo: the Dslash's exchange and the same messages alone, interleaved so both see the same machine.
  CallTimer halo{grid.comm()}, ceiling{grid.comm()};
  const auto exchange_only = [&] { d.move_halos(); };
  halo([&] { d.exchange(sets.in[0]); }, false);
  ceiling(exchange_only, false);
  for (int i = 0; i < std::max(3, o.settings.iters); ++i) {
    halo([&] { d.exchange(sets.in[0]); });
    ceiling(exchange_only);
  }
  r.halo_bytes = d.halo_bytes();
  r.messages = d.messages();
  for (int mu = 0; mu < 4; ++mu)
    if (grid.split(mu))  // 12 reals x face sites x 2 faces x the buffers' right-hand sides, per split direction
      r.halo_bytes_expected += 2ull * 12 * sizeof(Real) * static_cast<std::uint64_t>(d.kernel().rhs_slots()) *
                               static_cast<std::uint64_t>(grid.local().volume() / grid.local().extent(mu) / (r.cfg.out == Subset::Full ? 1 : 2));
  if (r.halo_bytes > 0) {
    const auto best = [](const std::vector<double>& t) { return *std::min_element(t.begin(), t.end()); };
    r.halo_GBs = static_cast<double>(r.halo_bytes) / best(halo.slowest) / 1e9;
    r.exchange_only_GBs = static_cast<double>(r.halo_bytes) / best(ceiling.slowest) / 1e9;
    r.halo_percent = 100 * r.halo_GBs / r.exchange_only_GBs;
  }

  const TimeSummary control_summary = summarize_times(r.control_times);
  r.control_min = control_summary.min;
  r.control_median = control_summary.median;
  r.overhead = r.time_min / r.control_min - 1;

  const double local_site_rhs = static_cast<double>(d.kernel().output_sites()) * r.cfg.nrhs;
  rate_best_call(r, sizeof(Real), local_site_rhs, grid.size());
  r.gflops_per_rank = r.gflops / grid.size();
  r.control_gflops_per_rank = kFlopsPerSite * local_site_rhs / r.control_min / 1e9;
  const double mine = kFlopsPerSite * local_site_rhs / decomposed.my_best / 1e9;
  r.rank_gflops.resize(static_cast<std::size_t>(grid.size()));
  MPI_Gather(&mine, 1, MPI_DOUBLE, r.rank_gflops.data(), 1, MPI_DOUBLE, 0, grid.comm());

  if (o.settings.check) {  // the gathered result against the single-process reference, on rank 0
    std::vector<SpinorField<Real>> out, got;
    d.kernel().unpack(sets.out[sets.last()], out);
    for (const auto& local : out) {
      std::optional<SpinorField<Real>> global = mpi::gather(grid, local);
      if (global) got.push_back(std::move(*global));
    }
    if (root) r.check = check_against_reference(*u_global, in_global, got, r.cfg.dagger);
  }
  return r;
}

// --verbose: where each variant's call goes, stage by stage, and the two comparisons.
void print_breakdown(const MpiResult& r, int iters) {
  std::printf("\n# %s: stages of one call, ms: min / median / max over the ranks of each rank's median over %d calls\n", r.label.c_str(), iters);
  for (const Stage& s : r.stages) {
    const char* note = s.name == "call" ? "  (the stages above add up to about this)"
                       : s.name == "interior" && r.completion == "kernel" ? "  (the halo's hops too: they were in before it)"
                       : s.name == "transfer" ? "  (post -> every message seen done: overlaps the interior)"
                       : s.name == "at: faces out (GPU)" ? "  (when, after the interior's start; the host's from the call's)" : "";
    std::printf("#   %-28s %9.4f %9.4f %9.4f%s\n", s.name.c_str(), 1e3 * s.seconds.min, 1e3 * s.seconds.median, 1e3 * s.seconds.max, note);
  }
  std::printf("#   control (no halo, every rank at once): best %.4f ms, median %.4f ms; decomposed best %.4f ms, median %.4f ms\n",
              1e3 * r.control_min, 1e3 * r.control_median, 1e3 * r.time_min, 1e3 * r.time_median);
}

}  // namespace

template <class Real, class Space>
MpiBenchRun run_mpi_benchmark(const MpiBenchConfig& o) {
  constexpr bool kDevice = !Space::host_accessible;
  const mpi::ProcessGrid grid(o.grid, o.run.lattice);
  const bool root = grid.rank() == 0;
  const int F = sizeof(Real);
  const char* progress = mpi::to_string(o.progress);
  const std::string halo_messages = mpi::halo_messages_name(o.halo.coalesce);

  RunInfo run = o.run;  // the header comes after the run, with its final ceilings
  run.title = "dslash bench over MPI";
  run.where = grid.describe();
  run.distributed = true;
  run.sites_per_parity = grid.local().half_volume();
  run.footprint_bytes = footprint_bytes<Real>(grid.local(), run.compress);
  run.llc = last_level_cache(ranks_per_node(grid.comm()));  // the ranks on a node share its cache
  run.notes = {std::string("comms overlap ") + progress + ", halo messages " + halo_messages +
               "; comm/compute per call: the slowest rank's median; control: the same local lattice with no halo, every rank at once"};
  run.extra = {{"local_lattice", grid.local().extents()}, {"grid", grid.grid()}, {"ranks", grid.size()},
               {"threads_per_rank", run.threads}, {"comms_overlap", progress},
               {"halo_messages", halo_messages}};
  run.extra["backend"] = kDevice ? "cuda" : "cpu";
  if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
    const mpi::GpuBinding gpu = mpi::bind_gpu(grid.comm(), o.gpu_per_rank);
    const cuda::DeviceInfo g = cuda::device_info();
    run.isas = {SimdIsa::Simt};
    run.llc = {g.l2_bytes, "the GPU's L2", gpu.sharing};  // ranks on one GPU share its L2
    run.notes.push_back("gpu " + g.name + ", rank 0: " + gpu.describe() + "; stages from CUDA events (GPU) and host clocks (post, wait), in calls of their own");
    run.extra["gpu"] = {{"name", g.name}, {"rank0", gpu.describe()}, {"cuda_aware_mpi", gpu.cuda_aware}, {"ranks_sharing_rank0_gpu", gpu.sharing},
                        {"gpu_halo", mpi::to_string(o.halo.gpu_halo)}};
#endif
  }
  // Every variant checked on the local lattice as its kernel will check it, before anything is
  // measured (every rank has the same local lattice, so the same verdict).
  std::vector<VariantRequest> requests;
  std::vector<std::string> refused;
  for (const VariantRequest& request : o.variants) {
    const DslashConfig& cfg = request.cfg;
    DslashConfig split = cfg;
    for (int mu = 0; mu < 4; ++mu) split.halo[static_cast<std::size_t>(mu)] = grid.split(mu);
    try {
      (void)DslashKernel<Real, Space>::check_config(grid.local(), split);
      requests.push_back(request);
    } catch (const std::invalid_argument& e) {
      if (!o.skip_refused) throw std::invalid_argument(grid.describe() + ": " + e.what());
      refused.push_back(grid.describe() + ": " + e.what());
    }
  }
  if (requests.empty()) throw std::invalid_argument(refused.front() + " (and no other variant can run either)");
  if (root)
    for (const auto& why : refused) std::fprintf(stderr, "skipped: %s\n", why.c_str());

  // Every rank measures at once, as they run: the ceilings are one rank's share of the node.
  if (root) std::fprintf(stderr, "measuring ceilings on every rank at once (%d threads each)...\n", run.threads);
  MPI_Barrier(grid.comm());
  MpiBenchRun b({run, Ceilings(run.llc, kDevice), {}, refused});
  b.ceilings.measure_round(run.isas, F);
  std::optional<GaugeField<Real>> u_global;
  if (root) {
    u_global.emplace(grid.global(), "bench_gauge_global");
    fill_random_su3(*u_global, o.settings.seed);  // the same field as a single-process run
  }
  const GaugeField<Real> u = mpi::scatter(grid, u_global ? &*u_global : nullptr);

  // A variant every rank fails alike (a CollectiveError) is skipped on every rank.
  run_variants<mpi::CollectiveError>(
      b, requests, o.skip_refused, root, grid.size(),
      [&](const VariantRequest& request) { return run_variant<Real, Space>(grid, u, u_global, request.cfg, o, b.run.llc); },
      [&] { MPI_Barrier(grid.comm()); });  // every rank measures its next round at once, as at the start
  int step = 4;  // a suggested lattice splits over the grid into domains every kernel can fold
  for (int mu = 0; mu < 4; ++mu) step = std::lcm(step, 4 * grid.grid()[static_cast<std::size_t>(mu)]);
  check_footprints(b.run, b.results, step, grid.size());
  b.local = grid.local().to_string();
  b.grid = grid.grid();
  b.ranks = grid.size();
  b.root = root;
  b.check = o.settings.check;
  b.progress = progress;
  return b;
}

int report(const MpiBenchRun& b, const ReportOptions& o) {
  const RunInfo& run = b.run;
  const auto& results = b.results;
  // Rank 0 reports; a failure there (an unwritable --json) is every rank's error.
  int status = 0;
  mpi::collectively([&] {
  if (!b.root) return;
  print_header(o.csv ? stderr : stdout, run, b.ceilings);
  if (o.csv) {
    std::printf("%s,local_lattice,grid,ranks,comms_overlap,gflops_per_rank,comm_s,compute_s,control_gflops_per_rank,overhead,"
                "halo_bytes_per_rank,halo_GBs,exchange_only_GBs\n",
                csv_columns(false).c_str());
    for (const auto& r : results)
      std::printf("%s,%s,%s,%d,%s,%.3f,%.6e,%.6e,%.3f,%.4f,%llu,%.3f,%.3f\n", csv_row(r, run, false).c_str(), b.local.c_str(),
                  mpi::grid_text(b.grid).c_str(), b.ranks, b.progress, r.gflops_per_rank, r.comm_s, r.compute_s,
                  r.control_gflops_per_rank, r.overhead, static_cast<unsigned long long>(r.halo_bytes), r.halo_GBs, r.exchange_only_GBs);
  } else {
    std::printf("%-6s %-8s %-7s %5s %9s %9s %11s %11s %7s %9s %9s %9s %9s %9s %9s %9s\n", "kernel", "dispatch", "simd", "nrhs", "min ms",
                "median ms", "GF/s total", "GF/s rank", "% roof", "ctrl rank", "overhead", "comm ms", "comp ms", "halo KB", "halo GB/s", "MPI GB/s");
    for (const auto& r : results)
      std::printf("%-6s %-8s %-7s %5d %9.3f %9.3f %11.2f %11.2f %6.1f%% %9.2f %8.1f%% %9.3f %9.3f %9.1f %9.2f %9.2f\n", to_string(r.cfg.kernel),
                  to_string(r.cfg.dispatch), to_string(r.cfg.isa), r.cfg.nrhs, 1e3 * r.time_min, 1e3 * r.time_median, r.gflops,
                  r.gflops_per_rank, r.percent_of_roofline, r.control_gflops_per_rank, 100 * r.overhead, 1e3 * r.comm_s, 1e3 * r.compute_s,
                  static_cast<double>(r.halo_bytes) / 1024.0, r.halo_GBs, r.exchange_only_GBs);
    std::printf("# ctrl rank: GF/s per rank of the no-halo control; overhead: decomposed best call / control best call - 1\n");
    std::printf("# halo KB: sent per rank per call = 12 reals x face sites x 2 faces x split directions (x nrhs); halo GB/s: the Dslash's "
                "exchange (project, post, wait); MPI GB/s: the same messages alone (post, wait)\n");
    for (const auto& r : results)
      if (r.halo_bytes > 0)
        std::printf("# %s: %shalo at %.0f%% of what %s moves here (%.2f of %.2f GB/s, %d message(s) each way); overhead %+.0f%% against the no-halo control\n",
                    r.label.c_str(), r.transport == "inputs" ? "the call reads its halo in place from the neighbours' inputs; as messages, " : "",
                    r.halo_percent, r.transport == "peer" ? "GPU to GPU (CUDA IPC)" : r.transport == "mpi" ? "MPI" : "a shared-memory window", r.halo_GBs,
                    r.exchange_only_GBs, r.messages, 100 * r.overhead);
    for (const auto& s : b.skipped) std::printf("# skipped: %s\n", s.c_str());
    if (o.verbose)
      for (const auto& r : results) print_breakdown(r, run.iters);
  }

  if (!o.json.empty()) write_run_json(o.json, b, mpi_fields);

  status = report_checks(results, b.check, " over " + mpi::grid_text(b.grid));
  });
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);  // only rank 0 checks: mpirun sees its verdict from every rank
  return status;
}

template MpiBenchRun run_mpi_benchmark<float, HostSpace>(const MpiBenchConfig&);
template MpiBenchRun run_mpi_benchmark<double, HostSpace>(const MpiBenchConfig&);
#if defined(DSLASH_HAVE_CUDA)
template MpiBenchRun run_mpi_benchmark<float, CudaSpace>(const MpiBenchConfig&);
template MpiBenchRun run_mpi_benchmark<double, CudaSpace>(const MpiBenchConfig&);
#endif

}  // namespace dslash::bench
