#pragma once
// What a run header reports about the machine and the build, and the measured roofline ceilings.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel_options.hpp"

namespace dslash::bench {

struct Ceilings {
  double bandwidth_GBs = 0;                     // best STREAM triad of the run, streaming stores, read + written bytes
  std::vector<double> bandwidth_samples;        // every triad of the run, GB/s
  std::map<std::string, double> fma_peak_GFLOPs;  // per instruction set used in the run
  // (best - median) / median over the samples: how much the machine moved while measuring.
  double bandwidth_spread = 0, fma_spread = 0;
  bool noisy() const { return bandwidth_spread > 0.10 || fma_spread > 0.10; }

  // kTriadRepeats more triads, kept with the others. On a shared machine the memory bandwidth has
  // slow phases that last seconds, and the Dslash runs slower in them too (2-core VM, 32^4 vnode
  // single, three runs: triads after the kernel 52, 47 and 31 GB/s, kernel 43.7, 33.1 and 27.3
  // GFLOP/s), so triads at the start alone put a variant against another phase's ceiling. The bench
  // samples again after every variant and rates each against the triads just before and after it.
  static constexpr std::size_t kTriadRepeats = 9;
  void resample_bandwidth(SimdIsa isa, int bytes_per_real);
  // The best triad from sample `first` on.
  double best_bandwidth_since(std::size_t first) const;
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
