#pragma once
// What a run header reports about the machine and the build, and the measured roofline ceilings.
#include <cstdint>
#include <map>
#include <string>

#include "kernels/kernel_options.hpp"

namespace dslash::bench {

struct Ceilings {
  double bandwidth_GBs = 0;                     // STREAM triad, streaming stores, read + written bytes
  std::map<std::string, double> fma_peak_GFLOPs;  // per instruction set used in the run
  // (median - best) / best over the repetitions: how much the machine moved while measuring.
  double bandwidth_spread = 0, fma_spread = 0;
  bool noisy() const { return bandwidth_spread > 0.10 || fma_spread > 0.10; }
};

// Both ceilings with the current OpenMP threads; bandwidth arrays are 4x the LLC (>= 64 MiB each).
Ceilings measure_ceilings(const std::vector<SimdIsa>& isas, int bytes_per_real);

std::uint64_t last_level_cache_bytes();  // 0 if unknown
std::string host_name();
std::string now_iso8601();
std::string compiler_description();
std::string build_flags();
std::string git_revision();
std::string build_id();  // git revision + compiler: tune-cache entries from another build are stale

}  // namespace dslash::bench
