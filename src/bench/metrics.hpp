#pragma once
// FLOP and byte accounting (CONVENTIONS.md "FLOP and byte accounting"), and the summary of a run's
// timed calls.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace dslash::bench {

inline constexpr double kFlopsPerSite = 1320;  // per output site per right-hand side

struct ByteModel {
  double model;       // no reuse: (8*24 + 8*G/N + 24) * F
  double compulsory;  // each input read once, each output written once
};

// F bytes per real, G reals per stored link (18, or 12 and 8 compressed: --compress), N right-hand
// sides sharing one gauge field, per site and right-hand side. Checkerboarded single precision: 768,
// 576 and 448 compulsory bytes. P >= N: the right-hand sides the buffers hold (mrhs pads N to its
// lanes), whose spinors move too; the bytes are still per one of the N that are credited. Half
// precision (F = 2) adds each spinor's norm, `spinor_norm_bytes` (4): 392, 296 and 232 compulsory.
inline ByteModel bytes_per_site(bool checkerboard, int bytes_per_real, int rhs_sharing_links, int reals_per_link = 18, int padded_rhs = 0,
                                int spinor_norm_bytes = 0) {
  const double F = bytes_per_real, G = reals_per_link, N = rhs_sharing_links, S = 24 * F + spinor_norm_bytes;
  const double moved = padded_rhs > rhs_sharing_links ? padded_rhs / N : 1;  // spinor bytes per credited right-hand side
  return {(8 + 1) * S * moved + 8 * G / N * F, (checkerboard ? 8 : 4) * G / N * F + 2 * S * moved};
}

// roofline = min(bandwidth x 1320 / compulsory bytes, FMA peak), in GFLOP/s.
inline double roofline_gflops(double bandwidth_GBs, double fma_peak_GFLOPs, double compulsory_bytes_per_site) {
  return std::min(bandwidth_GBs * kFlopsPerSite / compulsory_bytes_per_site, fma_peak_GFLOPs);
}

// Input/output sets to cycle through so that a working set that fits in the last-level cache does
// not flatter the rate: enough sets to span 4x the cache (at most 16), else 1. llc: the cache this
// process may count on (under MPI, its share of the node's); 0 = unknown.
inline int rotating_sets(std::uint64_t llc, std::uint64_t link_bytes, std::uint64_t set_bytes) {
  if (llc == 0 || link_bytes + set_bytes > llc) return 1;
  return static_cast<int>(std::min<std::uint64_t>(16, (4 * llc + set_bytes - 1) / set_bytes));
}

// A variant's calls are DRAM figures when what one call reads and writes (its links, one input and
// one output set) is at least this many times the last-level cache. Rotating sets (above) take the
// spinors out of the cache between calls, but every call reads the same links again, so only one
// call's bytes count. Below it, part of every call is served from the cache, and the rate can pass
// the DRAM roofline (docs/PERFORMANCE.md, the device host CPU's 32^4 row).
inline constexpr std::uint64_t kDramFootprintFactor = 4;

// The smallest lattice of dims' shape family whose calls reach kDramFootprintFactor x llc, at
// bytes_per_site bytes per call per lattice site of one process's domain (the lattice's volume over
// `processes`): L^3 x 2L when dims is one, else L^4, with L a multiple of `step` (one that every
// kernel's folding and the process grid divide).
inline std::array<int, 4> dram_lattice(const std::array<int, 4>& dims, double bytes_per_site, std::uint64_t llc, int step, int processes = 1) {
  if (!(bytes_per_site > 0) || llc == 0) return dims;  // nothing to reach
  const bool long_t = dims[0] == dims[1] && dims[1] == dims[2] && dims[3] == 2 * dims[0];
  for (int L = step;; L += step) {
    const std::array<int, 4> c{L, L, L, long_t ? 2 * L : L};
    const double volume = static_cast<double>(c[0]) * c[1] * c[2] * c[3] / processes;
    if (volume * bytes_per_site >= static_cast<double>(kDramFootprintFactor * llc)) return c;
  }
}

// The STREAM triad's three arrays together, per process: 4x the last-level cache and at least 1 GiB,
// so that a cache reported too small or not at all (VMs) still leaves the triad reading memory;
// the processes sharing the cache (MPI ranks on a node, all measuring at once) split it.
inline std::uint64_t triad_total_bytes(std::uint64_t llc, int sharing) {
  return std::max<std::uint64_t>(4 * llc, std::uint64_t{1} << 30) / static_cast<std::uint64_t>(std::max(1, sharing));
}

// min, median and max over every timed call (the untimed warm-up calls before them absorb cold
// caches and pages); spread = (median - min) / min, above 0.1 the machine was noisy.
struct TimeSummary {
  double min = 0, median = 0, max = 0, spread = 0;
};
inline TimeSummary summarize_times(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  TimeSummary t;
  t.min = times.front();
  t.max = times.back();
  t.median = times.size() % 2 ? times[times.size() / 2] : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  t.spread = (t.median - t.min) / t.min;
  return t;
}

}  // namespace dslash::bench
