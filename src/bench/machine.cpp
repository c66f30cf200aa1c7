#include "bench/machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <vector>
#include <chrono>
#include <ctime>
#include <fstream>

#include "dslash/core.hpp"
#include "git_revision.hpp"  // generated at build time: DSLASH_GIT_REVISION
#include "kernels/dslash_kernel.hpp"

namespace dslash::bench {

namespace {
struct Measured {
  double best, spread;
};
// Best and (best - median) / median of the values, where larger is better.
Measured best_and_spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double best = v.back(), median = v[v.size() / 2];
  return {best, (best - median) / median};
}

template <class Real>
std::vector<double> triad_rates(SimdIsa isa) {
  const MachineProbe<Real> probe = machine_probe<Real>(isa);
  const std::uint64_t llc = last_level_cache_bytes();
  const std::uint64_t bytes = std::max<std::uint64_t>(4 * llc, 64u << 20);
  const index_t n = static_cast<index_t>(bytes / sizeof(Real)) / 64 * 64;
  View<Real, 1> a("triad_a", static_cast<std::size_t>(n)), b("triad_b", static_cast<std::size_t>(n)), c("triad_c", static_cast<std::size_t>(n));
  deep_copy(b, Real(1));
  deep_copy(c, Real(2));
  std::vector<double> rates;
  for (std::size_t rep = 0; rep < Ceilings::kTriadRepeats; ++rep)
    rates.push_back(3.0 * static_cast<double>(n) * sizeof(Real) / probe.stream_triad(a.data(), b.data(), c.data(), n, Real(3)) / 1e9);
  return rates;
}

template <class Real>
Measured fma_gflops(SimdIsa isa) {
  const MachineProbe<Real> probe = machine_probe<Real>(isa);
  std::vector<double> rates;
  for (int rep = 0; rep < 5; ++rep) rates.push_back(probe.fma_peak(4'000'000) / 1e9);
  return best_and_spread(rates);
}
}  // namespace

Ceilings measure_ceilings(const std::vector<SimdIsa>& isas, int bytes_per_real) {
  Ceilings c;
  const SimdIsa widest = isas.empty() ? SimdIsa::Scalar : isas.front();
  c.resample_bandwidth(widest, bytes_per_real);
  for (SimdIsa isa : isas) {
    const Measured fma = bytes_per_real == 4 ? fma_gflops<float>(isa) : fma_gflops<double>(isa);
    c.fma_peak_GFLOPs[to_string(isa)] = fma.best;
    if (isa == widest) c.fma_spread = fma.spread;
  }
  return c;
}

void Ceilings::resample_bandwidth(SimdIsa isa, int bytes_per_real) {
  const std::vector<double> rates = bytes_per_real == 4 ? triad_rates<float>(isa) : triad_rates<double>(isa);
  bandwidth_samples.insert(bandwidth_samples.end(), rates.begin(), rates.end());
  const Measured bw = best_and_spread(bandwidth_samples);
  bandwidth_GBs = bw.best;
  bandwidth_spread = bw.spread;
}

double Ceilings::best_bandwidth_since(std::size_t first) const {
  return first < bandwidth_samples.size() ? *std::max_element(bandwidth_samples.begin() + static_cast<std::ptrdiff_t>(first), bandwidth_samples.end())
                                          : bandwidth_GBs;
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
