#include "bench/machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "bench/metrics.hpp"
#include "dslash/core.hpp"
#include "git_revision.hpp"  // generated at build time: DSLASH_GIT_REVISION
#include "kernels/dslash_kernel.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::bench {

namespace {
// a = b + s c over total_bytes of Space's memory, kTriads times, with isa's probe; where the probe
// has a copy (the GPU's, BabelStream's c = a), one after each triad.
template <class Real, class Space>
void run_triads(SimdIsa isa, std::uint64_t total_bytes, std::vector<double>& triads, std::vector<double>& copies) {
  const MachineProbe<Real> probe = machine_probe<Real>(isa);
  const index_t n = static_cast<index_t>(total_bytes / 3 / sizeof(Real)) / 64 * 64;
  using Array = View<Real, 1, LayoutRight, Space>;
  Array a("triad_a", static_cast<std::size_t>(n)), b("triad_b", static_cast<std::size_t>(n)), c("triad_c", static_cast<std::size_t>(n));
  deep_copy(b, Real(1));
  deep_copy(c, Real(2));
  const double bytes = static_cast<double>(n) * sizeof(Real);
  for (int rep = 0; rep < Ceilings::kTriads; ++rep) {
    triads.push_back(3.0 * bytes / probe.stream_triad(a.data(), b.data(), c.data(), n, Real(3)) / 1e9);
    if (probe.stream_copy) copies.push_back(2.0 * bytes / probe.stream_copy(c.data(), a.data(), n) / 1e9);
  }
}
template <class Space>
void run_triads(int bytes_per_real, SimdIsa isa, std::uint64_t total_bytes, std::vector<double>& triads, std::vector<double>& copies) {
  if (bytes_per_real == 4) run_triads<float, Space>(isa, total_bytes, triads, copies);
  else run_triads<double, Space>(isa, total_bytes, triads, copies);
}

template <class Real>
void run_fma_loops(SimdIsa isa, std::vector<double>& rates) {
  const MachineProbe<Real> probe = machine_probe<Real>(isa);
  for (int rep = 0; rep < Ceilings::kFmaLoops; ++rep) rates.push_back(probe.fma_peak(4'000'000) / 1e9);
}

double best(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// (best - median) / median, where larger is better.
double spread(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double median = v[v.size() / 2];
  return (v.back() - median) / median;
}
}  // namespace

Ceilings::Ceilings(const CacheInfo& llc, bool device) : on_device(device), triad_bytes(triad_total_bytes(llc.bytes, llc.sharing)) {
#if !defined(DSLASH_HAVE_CUDA)
  if (on_device) throw std::invalid_argument("this dslash was built without CUDA");
#endif
  if (!on_device) check_memory_fits(triad_bytes, "the STREAM triad (1 GiB or 4x the last-level cache, from " + llc.source + ")");
}

void Ceilings::measure_round(const std::vector<SimdIsa>& isas, int bytes_per_real) {
  const SimdIsa widest = isas.empty() ? SimdIsa::Scalar : isas.front();
  if (on_device) {
#if defined(DSLASH_HAVE_CUDA)
    run_triads<CudaSpace>(bytes_per_real, widest, triad_bytes, triads, copies);  // widest: SimdIsa::Simt
#endif
  } else {
    run_triads<HostSpace>(bytes_per_real, widest, triad_bytes, triads, copies);
  }
  for (SimdIsa isa : isas) {
    std::vector<double>& loops = fma_loops[to_string(isa)];
    if (bytes_per_real == 4) run_fma_loops<float>(isa, loops);
    else run_fma_loops<double>(isa, loops);
  }
}

double Ceilings::bandwidth_GBs() const { return best(triads); }
double Ceilings::copy_GBs() const { return best(copies); }

double Ceilings::fma_peak_GFLOPs(SimdIsa isa) const {
  const auto loops = fma_loops.find(to_string(isa));
  return loops == fma_loops.end() ? 0 : best(loops->second);
}

double Ceilings::roofline_GFLOPs(SimdIsa isa, double compulsory_bytes_per_site) const {
  const double peak = fma_peak_GFLOPs(isa);
  return roofline_gflops(bandwidth_GBs(), peak > 0 ? peak : 1e30, compulsory_bytes_per_site);
}

double Ceilings::bandwidth_spread() const { return spread(triads); }

double Ceilings::fma_spread(SimdIsa isa) const {
  const auto loops = fma_loops.find(to_string(isa));
  return loops == fma_loops.end() ? 0 : spread(loops->second);
}


CacheInfo choose_last_level_cache(const CacheReadings& readings, int sharing) {
  CacheInfo info;
  info.sharing = std::max(1, sharing);
  const CacheReading first = first_known(readings);
  info.bytes = first.bytes;
  info.source = first.source;
  return info;
}

CacheInfo last_level_cache(int sharing) { return choose_last_level_cache(read_cache_sources(), sharing); }

namespace {
std::string& recorded_command_line() {
  static std::string line;
  return line;
}

// An argument as a POSIX shell reads it back: as it is where it holds only safe characters, else in
// single quotes (a quote inside as '\'').
std::string shell_quoted(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") ==
                                         std::string::npos;
  if (plain) return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}
}  // namespace

void record_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += shell_quoted(argv[i]);
  }
  recorded_command_line() = line;
}

std::string command_line() { return recorded_command_line(); }

std::string cpu_model_from(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || line.compare(0, 10, "model name") != 0) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start == std::string::npos) continue;
    return line.substr(start, line.find_last_not_of(" \t\r") + 1 - start);
  }
  return "unknown";
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  return cpu_model_from(cpuinfo);
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string compiler_description() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string build_flags() { return DSLASH_BUILD_FLAGS; }
std::string git_revision() { return DSLASH_GIT_REVISION; }
std::string build_id() { return git_revision() + "/" + compiler_description(); }

}  // namespace dslash::bench
