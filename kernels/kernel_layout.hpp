#pragma once
// How a kernel stores its fields. Spinors: per outer site, per right-hand-side block, 12 complex
// numbers as (re vector, im vector) of W lanes; component c = 2*(3*spin + colour) + reim, and
//   LayoutRight (site-major):      offset = ((site*blocks + b)*24 + c)*W + lane
//   LayoutLeft  (component-major): offset = ((c*blocks + b)*sites + site)*W + lane
//   GPU vnode (pairs):             offset = (((c/2)*blocks + b)*sites + site)*2W + 2*lane + c%2
//     a lane's (re, im) adjacent, so a GPU thread reads a complex number in one 8-byte (single) or
//     16-byte (double) access (measured: simd/simt.hpp); the other GPU families use LayoutLeft
//   naive : W = 1, blocks = 1           -> exactly SpinorField's interleaved complex layout
//   mrhs  : W lanes = W right-hand sides, blocks = nrhs / W
//   vnode : W lanes = W virtual nodes: the lattice folded in two along log2(W) directions
// Links, per output site, 8 hops H = 2 mu + backward (forward U_mu(x), backward U_mu(x-mu)^dagger),
// each link G = 18, 12 or 8 stored reals (DslashConfig::compress; what they are:
// kernels/link_compression.hpp), 8 G components per site: component e = link_offset(H, G) + k of
// real k of hop H's link (uncompressed, k = 2 (3 r + c) + reim of U_H(r, c)), at
//   site-major      : (site*8G + e)*lanes + lane
//   component-major : (e*sites + site)*lanes + lane    (RunFields::link_stride = sites)
//   GPU vnode (pairs): ((e/2)*sites + site)*2 lanes + 2*lane + e%2
// where lanes is 1 when not folded (the kernel broadcasts the link across its lanes) and W when
// folded (one lane per virtual node).
// Halo face links (kernels/dslash_faces.hpp) are one uncompressed link per face site, U(r, c) at r*3 + c.
#include <array>
#include <string>

#include "dslash/core/macros.hpp"
#include "dslash/core/policies.hpp"
#include "dslash/lattice/geometry.hpp"

namespace dslash {

// The first stored component of hop H's link among a site's 8 links of G reals: link by link, the
// order in which the hop-by-hop body reads them, so a site's links are one sequential stream. The
// links in any other order break the stream into several, which some CPUs follow much worse
// (docs/history/HISTORY.md, "vnode links stored in the order the hops read them").
constexpr int link_offset(int hop, int reals_per_link) { return hop * reals_per_link; }

struct KernelLayout {
  int lanes = 1;
  bool folded = false;
  int blocks = 1;
  Coord nodes{1, 1, 1, 1};       // virtual nodes per direction (1 or 2)
  Coord outer{};                 // outer (per virtual node) lattice extents
  std::array<int, 4> lane_bit{-1, -1, -1, -1};  // the lane-index bit of each folded direction

  // Spinor strides in vectors of W reals, for a buffer of `sites` outer sites.
  // With pairs, offset() is that of component c's complex number (its 2W reals); index() is right for both.
  struct Strides {
    index_t site, block, component;
    bool pairs = false;  // the GPU's layout: a lane's (re, im) adjacent
    DSLASH_INLINE_FUNCTION index_t offset(index_t s, index_t b, index_t c) const { return s * site + b * block + c * component; }
    // The real of component c (0..23) of lane `lane` at site s, block b, for W lanes.
    DSLASH_INLINE_FUNCTION index_t index(index_t s, index_t b, int c, int lane, int w) const {
      return pairs ? offset(s, b, c & ~1) * w + 2 * lane + (c & 1) : offset(s, b, c) * w + lane;
    }
  };
  Strides spinor_strides(bool left, index_t sites, bool pairs = false) const {
    if (pairs) return Strides{2, 2 * sites, blocks * sites, true};
    return left ? Strides{1, sites, blocks * sites} : Strides{24 * blocks, 24, 1};
  }

  // Folding W = 2^d lanes takes the last d directions: W = 8 folds y, z, t; W = 16 folds x, y, z, t.
  // Throws std::invalid_argument naming the constraint and the nearest valid sizes.
  static KernelLayout make(const Geometry& global, int lanes, bool folded, int blocks, const std::string& what);

  Geometry outer_geometry() const { return Geometry(outer); }
  // Global lattice site of lane `lane` at outer coordinates xo.
  Coord global_coords(const Coord& xo, int lane) const {
    Coord x = xo;
    for (std::size_t mu = 0; mu < 4; ++mu)
      if (lane_bit[mu] >= 0) x[mu] += ((lane >> lane_bit[mu]) & 1) * outer[mu];
    return x;
  }
};

}  // namespace dslash
