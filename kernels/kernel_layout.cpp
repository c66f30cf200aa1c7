#include "kernels/kernel_layout.hpp"

#include <stdexcept>

namespace dslash {

namespace {
const char* const kAxis = "xyzt";
}

KernelLayout KernelLayout::make(const Geometry& global, int lanes, bool folded, int blocks, const std::string& what) {
  KernelLayout k;
  k.lanes = lanes;
  k.folded = folded;
  k.blocks = blocks;
  int d = 0;
  while ((1 << d) < lanes) ++d;
  if ((1 << d) != lanes || d > 4) throw std::invalid_argument(what + ": lane count " + std::to_string(lanes) + " is not 1, 2, 4, 8 or 16");
  if (folded)
    for (int mu = 4 - d; mu < 4; ++mu) {
      k.nodes[static_cast<std::size_t>(mu)] = 2;
      k.lane_bit[static_cast<std::size_t>(mu)] = mu - (4 - d);
    }
  std::string folded_dirs;
  for (std::size_t mu = 0; mu < 4; ++mu)
    if (k.nodes[mu] == 2) folded_dirs += kAxis[mu];
  for (std::size_t mu = 0; mu < 4; ++mu) {
    const int L = global.extent(static_cast<int>(mu)), n = k.nodes[mu];
    // Each virtual node's extent must be even, so its checkerboard matches the global one.
    const int step = 2 * n;
    if (L % step != 0) {
      const int lo = L / step * step, hi = lo + step;
      throw std::invalid_argument(what + " folds " + std::to_string(lanes) + " lanes over " + folded_dirs +
                                  ": L" + std::to_string(mu) + " (" + kAxis[mu] + ") = " + std::to_string(L) +
                                  " must be a multiple of " + std::to_string(step) + "; nearest valid: " +
                                  (lo > 0 ? std::to_string(lo) + " or " : "") + std::to_string(hi));
    }
    k.outer[mu] = L / n;
  }
  return k;
}

}  // namespace dslash
