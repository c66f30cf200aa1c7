#pragma once
// The one report of every bench (single process, MPI, and backends to come): the run header on '#'
// lines, the CSV columns and the JSON file (meta, ceilings, results, skipped), so that a tool reads
// every run the same way. A bench adds its own fields: RunInfo::extra (in meta and in every result),
// header notes, and fields or CSV columns after the common ones.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/machine.hpp"
#include "bench/metrics.hpp"
#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"

namespace dslash::bench {

// What ran where: everything the header and the JSON meta say about a run.
struct RunInfo {
  std::string title = "dslash bench";  // the header's first words
  std::string where;                   // the header's lattice description ("lattice 8x8x8x8", or the MPI grid)
  Coord lattice{};                     // the global lattice
  bool distributed = false;            // MPI: sites, footprint, threads and ceilings are one rank's
  std::int64_t sites_per_parity = 0;   // per process
  std::uint64_t footprint_bytes = 0;   // per process: footprint_bytes<Real>()
  CacheInfo llc;
  int threads = 1;  // per process
  SimdIsa isa = SimdIsa::Scalar;
  std::vector<SimdIsa> isas;  // every instruction set whose FMA peak the run measured
  int bytes_per_real = 4, iters = 0, warmup = 0;
  int compress = 18;  // gauge compression: reals stored per link (DslashConfig::compress)
  std::string parity;
  bool dagger = false;
  std::string started;                               // ISO 8601: the run's start
  std::vector<std::string> notes;                    // the bench's own header lines, after the common ones
  // check_footprints: the variant whose one call reads and writes the fewest bytes, those bytes over
  // the cache this process may count on (0: cache unknown), and, when that is under
  // kDramFootprintFactor, the smallest lattice of the same shape at which every variant reaches it.
  std::string smallest_call;
  double footprint_over_llc = 0;
  Coord dram_lattice{};  // all 0: none needed
  nlohmann::json extra = nlohmann::json::object();  // the bench's own fields, in meta and in every result

  bool half = false;  // half precision storage (bytes_per_real is then single's: its arithmetic and lanes)
  std::string prec() const { return half ? "half" : bytes_per_real == 4 ? "single" : "double"; }
  std::string headline() const;  // how the rates were timed: timing_rule(), and under MPI to the slowest rank
};

// The gauge field, the kernel's packed links (8 per output site: as large as the gauge field for a
// checkerboarded operator, at `compress` of its 18 reals per link), and one input and one output
// spinor, on one process's lattice.
template <class Real>
std::uint64_t footprint_bytes(const Geometry& local, int compress = 18) {
  const std::uint64_t gauge = GaugeField<Real>::bytes_for(local);
  return gauge + gauge / 18 * static_cast<std::uint64_t>(compress) + 2 * SpinorField<Real>::bytes_for(local, Subset::Even);
}
// "none (18 reals per link)", "12 reals per link (two rows; the third rebuilt)", ...: the header's words.
std::string compression_text(int compress);

// Fills run's footprint fields (above) from the variants that ran; `step`: what the suggested L must
// be a multiple of (4 for every kernel's folding; under MPI, also the process grid's splits).
template <class Result>
void check_footprints(RunInfo& run, const std::vector<Result>& results, int step = 4, int processes = 1) {
  if (!run.llc.known() || results.empty()) return;
  const auto fewest = std::min_element(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.call_bytes < b.call_bytes; });
  run.smallest_call = fewest->label;
  run.footprint_over_llc = static_cast<double>(fewest->call_bytes) / static_cast<double>(run.llc.share());
  if (run.footprint_over_llc >= static_cast<double>(kDramFootprintFactor)) return;
  const double volume = static_cast<double>(run.lattice[0]) * run.lattice[1] * run.lattice[2] * run.lattice[3] / processes;
  run.dram_lattice = dram_lattice(run.lattice, static_cast<double>(fewest->call_bytes) / volume, run.llc.share(), step, processes);
}

// "2.6 MiB (fits in the 32 MiB last-level cache, from sysfs)", or "2.6 MiB (last-level cache size unknown: ...)".
std::string footprint_text(std::uint64_t footprint, const CacheInfo& llc);
// The one timing rule (benchmark.hpp), as the header, the JSON (meta.headline) and the README say it.
std::string timing_rule(int iters, int warmup);

void print_header(std::FILE* out, const RunInfo& run, const Ceilings& ceilings);

// The CSV header line and one result's row (no newline): the columns every bench writes; a bench
// appends its own after them, and the traffic column comes with --traffic.
std::string csv_columns(bool traffic);
std::string csv_row(const VariantResult& r, const RunInfo& run, bool traffic);

nlohmann::json result_json(const VariantResult& r, const RunInfo& run);
nlohmann::json run_json(const RunInfo& run, const Ceilings& ceilings, const nlohmann::json& results, const std::vector<std::string>& skipped);
void write_json(const std::string& path, const nlohmann::json& j);  // atomically: a failed run leaves no half file

// A whole run of a bench: what ran where, the ceilings measured through it, its variants' results,
// and why any variant was skipped.
template <class Result>
struct BenchRun {
  RunInfo run;
  Ceilings ceilings;
  std::vector<Result> results;
  std::vector<std::string> skipped;
};

// How a run is reported: a table or CSV on stdout, a stage breakdown (MPI), every figure to a JSON file.
struct ReportOptions {
  bool csv = false, verbose = false;
  std::string json;  // empty: none
};

// Every bench's loop: each request in turn, measure(request) timing it, a ceilings round after each
// (before_round() first), then every result rated against the run's best ceilings. A request whose
// measure throws Refusal is skipped where skip_refused (--kernel all), else the error ends the run.
// Progress on stderr where `print`.
template <class Refusal, class Result, class Request, class Measure, class BeforeRound>
void run_variants(BenchRun<Result>& b, const std::vector<Request>& requests, bool skip_refused, bool print, int processes,
                  const Measure& measure, const BeforeRound& before_round) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (print) std::fprintf(stderr, "[%zu/%zu] %s %s...\n", i + 1, requests.size(), to_string(requests[i].cfg.kernel), to_string(requests[i].cfg.dispatch));
    try {
      b.results.push_back(measure(requests[i]));
      before_round();
      b.ceilings.measure_round(b.run.isas, b.run.bytes_per_real);
    } catch (const Refusal& e) {
      if (!skip_refused) throw;
      b.skipped.push_back(e.what());
      if (print) std::fprintf(stderr, "  skipped: %s\n", e.what());
    }
  }
  for (Result& r : b.results) rate_against(r, b.ceilings, processes);  // the run's best ceilings
}

// --json: the run and every result, own(r) adding a bench's own fields to each.
template <class Result, class Own>
void write_run_json(const std::string& path, const BenchRun<Result>& b, const Own& own) {
  nlohmann::json results = nlohmann::json::array();
  for (const Result& r : b.results) {
    nlohmann::json e = result_json(r, b.run);
    e.update(own(r));
    results.push_back(std::move(e));
  }
  write_json(path, run_json(b.run, b.ceilings, results, b.skipped));
}

// One stderr line per variant that failed --check, and the exit status: 1 if any failed.
template <class Result>
int report_checks(const std::vector<Result>& results, bool check, const std::string& where = "") {
  int failures = 0;
  for (const auto& r : results)
    if (r.check && !r.check->passed) {
      std::fprintf(stderr, "dslash: check failed: %s%s differs from the reference by %.3e (relative)\n", r.label.c_str(), where.c_str(),
                   r.check->relative_error);
      ++failures;
    }
  if (check && failures == 0) std::fprintf(stderr, "check passed: %zu variant(s) agree with the reference\n", results.size());
  return failures == 0 ? 0 : 1;
}

}  // namespace dslash::bench
