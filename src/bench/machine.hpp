#pragma once
// What a run header reports about the machine and the build, and the measured roofline ceilings.
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "kernels/host_cache.hpp"
#include "kernels/kernel_options.hpp"

namespace dslash::bench {

// The last-level cache, and where its size came from (a VM may hide it from sysfs).
struct CacheInfo {
  std::uint64_t bytes = 0;         // the whole cache; 0: unknown
  std::string source = "unknown";  // DSLASH_LLC_BYTES, sysfs, cpuid, sysconf or unknown
  int sharing = 1;                 // processes that share it (under MPI, the ranks on a node)
  bool known() const { return bytes > 0; }
  std::uint64_t share() const { return bytes / static_cast<std::uint64_t>(sharing); }  // what one process may count on
};

// The cache readings themselves (sysfs, CPUID, sysconf) are the kernels' (kernels/host_cache.hpp).
using dslash::CacheReadings;
using dslash::cpuid_cache_bytes;
using dslash::parse_cache_size;
using dslash::read_cache_sources;
// first_known(readings) (kernels/host_cache.hpp), shared by `sharing` processes.
CacheInfo choose_last_level_cache(const CacheReadings& readings, int sharing = 1);
CacheInfo last_level_cache(int sharing = 1);  // choose_last_level_cache(read_cache_sources())

// The roofline's two ceilings, measured in rounds with the current OpenMP threads: a round is
// kTriads STREAM triads (streaming stores, read + written bytes, over triad_total_bytes(): metrics.hpp)
// and kFmaLoops FMA loops per instruction set. The bench measures a round at the start and one after
// every variant, and rates every variant against the best of the whole run. On a shared machine
// both ceilings have slow phases that last seconds, so one round at the start can land in one and
// rate the whole run against it; rating each variant against the rounds around it overstates instead,
// whenever those rounds catch a slow phase that the kernel missed (docs/history/HISTORY.md,
// "Ceilings measured in rounds through the run").
//
// On the GPU (on_device, a build with CUDA) the arrays are in device memory and each round adds a
// BabelStream copy; the times come from CUDA events, and the FMA loop is SimdIsa::Simt's.
struct Ceilings {
  static constexpr int kTriads = 9, kFmaLoops = 5;
  explicit Ceilings(const CacheInfo& llc, bool on_device = false);
  bool on_device;
  std::uint64_t triad_bytes;                               // the triad's three arrays together, per process
  std::vector<double> triads;                              // every triad of the run, GB/s
  std::vector<double> copies;                              // GPU only: every copy (a = b) of the run, GB/s
  std::map<std::string, std::vector<double>> fma_loops;    // every FMA loop per instruction set, GFLOP/s

  void measure_round(const std::vector<SimdIsa>& isas, int bytes_per_real);
  int rounds() const { return static_cast<int>(triads.size()) / kTriads; }
  // The best of the run; an FMA peak is 0 if not measured.
  double bandwidth_GBs() const;
  double copy_GBs() const;  // 0 on a CPU
  double fma_peak_GFLOPs(SimdIsa isa) const;
  // min(bandwidth x 1320 / compulsory bytes, FMA peak of isa) on the run's best (metrics.hpp); a
  // peak not measured does not bound it.
  double roofline_GFLOPs(SimdIsa isa, double compulsory_bytes_per_site) const;
  // (best - median) / median over the run: how much the machine moved while measuring.
  double bandwidth_spread() const;
  double fma_spread(SimdIsa isa) const;
  bool noisy(SimdIsa isa) const { return bandwidth_spread() > 0.10 || fma_spread(isa) > 0.10; }
};

std::string host_name();
// The command line as run, for the reports: main records it once; command_line() joins the
// arguments with spaces, each quoted for a POSIX shell where it needs it, so it can be run again.
// Empty until recorded.
void record_command_line(int argc, const char* const* argv);
std::string command_line();
// The CPU's model name: /proc/cpuinfo's first "model name" line, or "unknown" (as on most ARM
// kernels, which print none); cpu_model_from reads it from any stream.
std::string cpu_model();
std::string cpu_model_from(std::istream& cpuinfo);
std::string now_iso8601();
std::string compiler_description();
std::string build_flags();
std::string git_revision();
std::string build_id();  // git revision + compiler: tune-cache entries from another build are stale

}  // namespace dslash::bench
