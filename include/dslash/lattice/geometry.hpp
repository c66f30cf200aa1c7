#pragma once
// Lattice geometry (docs/CONVENTIONS.md): directions mu = 0..3 = x, y, z, t; lexicographic site index
// s = x + L0*(y + L1*(z + L2*t)), x fastest; parity (x+y+z+t) mod 2; checkerboard index cb = s/2;
// periodic boundaries.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace dslash {

using Coord = std::array<int, 4>;
using site_t = std::int64_t;

enum class Parity : int { Even = 0, Odd = 1 };
inline Parity other(Parity p) { return p == Parity::Even ? Parity::Odd : Parity::Even; }
const char* to_string(Parity p);

// Which sites a field holds: one checkerboard or the full lattice.
enum class Subset : int { Even = 0, Odd = 1, Full = 2 };
inline Subset subset_of(Parity p) { return static_cast<Subset>(static_cast<int>(p)); }
const char* to_string(Subset s);
// Where the nearest neighbours of a subset's sites live: a hop flips parity; Full stays Full. This is
// the input subset of a Dslash whose output is `s`.
inline Subset neighbour_subset(Subset s) {
  return s == Subset::Full ? Subset::Full : s == Subset::Even ? Subset::Odd : Subset::Even;
}

class Geometry {
 public:
  // Throws std::invalid_argument naming the offending extent: every extent positive and even (the
  // checkerboard needs it), and the volume representable.
  explicit Geometry(const Coord& extents);

  const Coord& extents() const { return extents_; }
  int extent(int mu) const { return extents_[static_cast<std::size_t>(mu)]; }
  site_t volume() const { return volume_; }
  site_t half_volume() const { return volume_ / 2; }
  std::string to_string() const;  // "16x16x16x32"

  site_t site(const Coord& x) const {
    return x[0] + static_cast<site_t>(extents_[0]) * (x[1] + static_cast<site_t>(extents_[1]) * (x[2] + static_cast<site_t>(extents_[2]) * x[3]));
  }
  Coord coords(site_t s) const {
    Coord x;
    for (std::size_t mu = 0; mu < 4; ++mu) {
      x[mu] = static_cast<int>(s % extents_[mu]);
      s /= extents_[mu];
    }
    return x;
  }
  static int parity(const Coord& x) { return (x[0] + x[1] + x[2] + x[3]) & 1; }
  int parity(site_t s) const { return parity(coords(s)); }
  static site_t cb_index(site_t s) { return s / 2; }
  // The site of parity p with checkerboard index cb. L0 is even, so each x-row holds L0/2 sites of
  // each parity, and the row's parity offset picks between x = 2k and x = 2k + 1.
  site_t site_from_cb(site_t cb, Parity p) const {
    const site_t s0 = 2 * cb;  // the even-x candidate
    const site_t row = s0 / extents_[0];
    const int row_parity = static_cast<int>((row % extents_[1] + (row / extents_[1]) % extents_[2] +
                                             row / (static_cast<site_t>(extents_[1]) * extents_[2])) & 1);
    return s0 + ((row_parity ^ static_cast<int>(p)) & 1);
  }
  // Neighbour of s one step in direction mu, forward (dir = +1) or backward (dir = -1), periodic.
  site_t neighbour(site_t s, int mu, int dir) const {
    Coord x = coords(s);
    const int L = extents_[static_cast<std::size_t>(mu)];
    x[static_cast<std::size_t>(mu)] = (x[static_cast<std::size_t>(mu)] + dir + L) % L;
    return site(x);
  }

  bool operator==(const Geometry& o) const { return extents_ == o.extents_; }

 private:
  Coord extents_;
  site_t volume_;
};

// "16x16x16x32" or Grid's "16.16.16.32", x first. Throws std::invalid_argument with the reason.
Coord parse_extents(std::string_view text);

// Throws std::runtime_error when `bytes` exceed the memory this machine has available, so a lattice
// that cannot fit is refused before anything is allocated.
void check_memory_fits(std::uint64_t bytes, std::string_view what);
std::string format_bytes(std::uint64_t bytes);

}  // namespace dslash
