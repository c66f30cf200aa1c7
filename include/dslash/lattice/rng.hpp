#pragma once
// Counter-based random numbers: every (seed, site, stream) key gives its own short sequence, so a
// parallel fill draws the same numbers whatever the thread count or iteration order.
#include <cmath>
#include <cstdint>
#include <numbers>

namespace dslash {

class SiteRng {
 public:
  SiteRng(std::uint64_t seed, std::uint64_t site, std::uint64_t stream = 0)
      : state_(mix(seed ^ mix(site + 0x9E3779B97F4A7C15ull * (stream + 1)))) {}

  // Uniform in (0, 1): never 0, so log() below is safe.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }

  // Standard normal, Box-Muller.
  double gaussian() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double phi = 2.0 * std::numbers::pi * uniform();
    spare_ = r * std::sin(phi);
    have_spare_ = true;
    return r * std::cos(phi);
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {  // SplitMix64 finaliser
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ull); }

  std::uint64_t state_;
  double spare_ = 0;
  bool have_spare_ = false;
};

}  // namespace dslash
