#pragma once
// DeGrand-Rossi gamma matrices (CONVENTIONS.md; as Chroma, QDP++ and Grid). Stored as exact
// integers: entry = re + i*im with re, im in {-1, 0, 1}.
#include <array>
#include <complex>

namespace dslash {

struct GammaEntry {
  int re, im;
};
using GammaMatrix = std::array<std::array<GammaEntry, 4>, 4>;

// clang-format off
inline constexpr std::array<GammaMatrix, 4> kGamma = {{
  // g0 (x)
  {{ {{{0,0},{0,0},{0,0},{0,1}}}, {{{0,0},{0,0},{0,1},{0,0}}}, {{{0,0},{0,-1},{0,0},{0,0}}}, {{{0,-1},{0,0},{0,0},{0,0}}} }},
  // g1 (y)
  {{ {{{0,0},{0,0},{0,0},{-1,0}}}, {{{0,0},{0,0},{1,0},{0,0}}}, {{{0,0},{1,0},{0,0},{0,0}}}, {{{-1,0},{0,0},{0,0},{0,0}}} }},
  // g2 (z)
  {{ {{{0,0},{0,0},{0,1},{0,0}}}, {{{0,0},{0,0},{0,0},{0,-1}}}, {{{0,-1},{0,0},{0,0},{0,0}}}, {{{0,0},{0,1},{0,0},{0,0}}} }},
  // g3 (t)
  {{ {{{0,0},{0,0},{1,0},{0,0}}}, {{{0,0},{0,0},{0,0},{1,0}}}, {{{1,0},{0,0},{0,0},{0,0}}}, {{{0,0},{1,0},{0,0},{0,0}}} }},
}};
// clang-format on

// g5 = g0 g1 g2 g3 = diag(1, 1, -1, -1)
inline constexpr std::array<int, 4> kGamma5Diagonal = {1, 1, -1, -1};

template <class Real>
std::complex<Real> gamma_entry(int mu, int row, int col) {
  const GammaEntry e = kGamma[static_cast<std::size_t>(mu)][static_cast<std::size_t>(row)][static_cast<std::size_t>(col)];
  return {static_cast<Real>(e.re), static_cast<Real>(e.im)};
}

}  // namespace dslash
