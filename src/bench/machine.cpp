#include "bench/machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <vector>
#include <chrono>
#include <ctime>
#include <fstream>

#include "bench/metrics.hpp"
#include "dslash/core.hpp"
#include "git_revision.hpp"  // generated at build time: DSLASH_GIT_REVISION
#include "kernels/dslash_kernel.hpp"

namespace dslash::bench {

namespace {
template <class Real>
void run_triads(SimdIsa isa, std::vector<double>& rates) {
  const MachineProbe<Real> probe = machine_probe<Real>(isa);
  const std::uint64_t llc = last_level_cache_bytes();
  const std::uint64_t bytes = std::max<std::uint64_t>(4 * llc, 64u << 20);
  const index_t n = static_cast<index_t>(bytes / sizeof(Real)) / 64 * 64;
  View<Real, 1> a("triad_a", static_cast<std::size_t>(n)), b("triad_b", static_cast<std::size_t>(n)), c("triad_c", static_cast<std::size_t>(n));
  deep_copy(b, Real(1));
  deep_copy(c, Real(2));
  for (int rep = 0; rep < Ceilings::kTriads; ++rep)
    rates.push_back(3.0 * static_cast<double>(n) * sizeof(Real) / probe.stream_triad(a.data(), b.data(), c.data(), n, Real(3)) / 1e9);
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

void Ceilings::measure_round(const std::vector<SimdIsa>& isas, int bytes_per_real) {
  const SimdIsa widest = isas.empty() ? SimdIsa::Scalar : isas.front();
  if (bytes_per_real == 4) run_triads<float>(widest, triads);
  else run_triads<double>(widest, triads);
  for (SimdIsa isa : isas) {
    std::vector<double>& loops = fma_loops[to_string(isa)];
    if (bytes_per_real == 4) run_fma_loops<float>(isa, loops);
    else run_fma_loops<double>(isa, loops);
  }
}

double Ceilings::bandwidth_GBs() const { return best(triads); }

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

std::uint64_t last_level_cache_bytes() {
  std::uint64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream size_file(dir + "size");
    std::string size;
    if (!(size_file >> size)) continue;
    std::uint64_t value = std::strtoull(size.c_str(), nullptr, 10);
    if (size.back() == 'K') value <<= 10;
    else if (size.back() == 'M') value <<= 20;
    best = std::max(best, value);
  }
  return best;
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
