#pragma once
// The benchmark in one process: every variant on the whole lattice, each timed by Benchmark
// (bench/benchmark.hpp), its launch shape tuned where asked (and kept in the tune cache), and all
// rated against the ceilings measured through the run. Its report: a table or CSV on stdout, the
// run header on '#' lines (stderr with CSV), every figure in the JSON.
#include <utility>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/report.hpp"

namespace dslash::bench {

struct SingleBenchConfig {
  RunInfo run;  // the fields every bench's report shares (the command's run_info), run.lattice the lattice; the engine adds the rest
  // The variants (kernel x dispatch, launch shape set, or tuned where tune_tile / tune_team), each
  // checked as its kernel will check it before anything is measured.
  std::vector<VariantRequest> variants;
  bool skip_refused = false;  // a variant the kernel refuses is skipped (--kernel all), not an error
  BenchSettings settings;     // llc_bytes is the cache found here
};

struct SingleBenchRun : BenchRun<VariantResult> {
  explicit SingleBenchRun(BenchRun<VariantResult> b) : BenchRun<VariantResult>(std::move(b)) {}
  bool traffic = false;  // the memory traffic was timed too (BenchSettings::traffic)
  bool tuned = false;    // some variant's launch shape came from the tuner or the tune cache
  bool check = false;
};

// Measures every variant in turn; progress on stderr. A variant the kernel refuses is skipped where
// cfg.skip_refused, else std::invalid_argument, before any ceiling is measured.
template <class Real, class Space>
SingleBenchRun run_single_benchmark(const SingleBenchConfig& cfg);

// Prints the table or CSV and writes the JSON; returns the exit status (1: a --check failed).
int report(const SingleBenchRun& b, const ReportOptions& o);

}  // namespace dslash::bench
