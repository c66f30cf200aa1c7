#pragma once
// The benchmark over MPI ranks (a build with MPI): every variant on the global lattice split over
// the ranks' process grid, with halo exchange. Rank 0 reports; the others only compute and communicate.
//   per call : the slowest rank's wall time (a barrier starts every call)
//   GFLOP/s  : total = 1320 x global sites x nrhs / best call; per rank = total / ranks
//   stages   : each rank's median over the timed calls of each stage of HaloDslash::apply (project
//              and complete per direction, post, interior, progress tests, wait; with the halo's
//              hops in the interior launch, no complete), then min / median /
//              max over the ranks; comm = project + post + wait, compute = interior + progress +
//              complete, the slowest rank's
//   control  : every rank at once runs the same local lattice with periodic wrap and no messages
//              (the single-process kernel, same threads), timed by the same rule, a control call
//              between every two decomposed calls; overhead = best decomposed call / best control
//              call - 1
//   halo     : bytes each rank sends per call; the Dslash's exchange (project, post, wait) against
//              the same messages moved with nothing else (post, wait: the exchange-only ceiling)
// Space = CudaSpace: one GPU per rank (shared where a node has fewer); the stages come from CUDA events
// (project, interior, complete, the staging copies) and host clocks (post, wait), in as many calls
// again after the timed ones (the events lengthen a call); the control and the ceilings run on each
// rank's GPU, all ranks at once.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/report.hpp"
#include "mpi/halo_dslash.hpp"

namespace dslash::bench {

// One figure over the ranks: min / median / max of each rank's median over its calls.
struct OverRanks {
  double min = 0, median = 0, max = 0;
};

struct Stage {
  std::string name;  // "project" (a GPU's "project t"), "post", "interior", ..., "call"
  OverRanks seconds;
};

// A variant's figures as every bench reports them (times per call, slowest rank; rates of all ranks
// together), and what only a run over ranks has.
struct MpiResult : VariantResult {
  double gflops_per_rank = 0;
  double comm_s = 0, compute_s = 0;
  std::vector<Stage> stages;  // in call order, then the call itself and the transfer (which overlaps them)
  std::vector<double> rank_gflops;  // each rank's own rate: local flops / its own best call
  // The no-halo control: the same local lattice on every rank, no messages.
  std::vector<double> control_times;
  double control_min = 0, control_median = 0, control_gflops_per_rank = 0, overhead = 0;
  // Halo bytes per rank and call; the Dslash's exchange and the exchange-only ceiling, best calls.
  std::uint64_t halo_bytes = 0, halo_bytes_expected = 0;
  int messages = 0;  // sent per rank and call
  std::string transport;  // HaloDslash::transport(): mpi, shared, inputs, staged or peer
  std::string completion;  // HaloDslash::completion(): kernel or faces
  double halo_GBs = 0, exchange_only_GBs = 0, halo_percent = 0;
};

struct MpiBenchConfig {
  Coord grid{1, 1, 1, 1};  // the process grid over the global lattice run.lattice (MPI_COMM_WORLD's ranks)
  RunInfo run;             // the fields every bench's report shares (the command's run_info); the engine adds the rest
  // The variants (kernel x dispatch, launch shape set), checked on the split domains before anything
  // is measured; over MPI nothing is tuned.
  std::vector<VariantRequest> variants;
  bool skip_refused = false;  // a variant the domains refuse is skipped (--kernel all), not an error
  BenchSettings settings;     // iters, warmup, check, seed; llc_bytes is the node's share, found here
  mpi::HaloOptions halo;
  mpi::Progress progress = mpi::Progress::Chunks;
  bool gpu_per_rank = false;  // GPU ranks: refuse to share a GPU
};

struct MpiBenchRun : BenchRun<MpiResult> {
  explicit MpiBenchRun(BenchRun<MpiResult> b) : BenchRun<MpiResult>(std::move(b)) {}
  std::string local;  // the local lattice, "8x8x4x4"
  Coord grid{};
  int ranks = 1;
  bool root = false;  // this is rank 0, which reports
  bool check = false;
  const char* progress = "";
};

// Collective over MPI_COMM_WORLD: every rank measures; the report's figures are complete on rank 0.
// A variant no rank can run is skipped where cfg.skip_refused (every rank agrees), else std::invalid_argument.
template <class Real, class Space>
MpiBenchRun run_mpi_benchmark(const MpiBenchConfig& cfg);

// Collective: rank 0 prints the table or CSV and writes the JSON; a failure there is every rank's
// error. Every rank returns the exit status (1: a --check failed).
int report(const MpiBenchRun& b, const ReportOptions& o);

}  // namespace dslash::bench
