#pragma once
// DeGrand-Rossi gamma matrices (docs/CONVENTIONS.md; as Chroma, QDP++ and Grid): the project's one
// table of them. The reference operator multiplies by it and the kernels' spin projectors are
// derived from it (kernels/spin_projector.hpp); tests/test_gamma.cpp pins it to the convention.
// Stored as exact integers: entry = re + i*im with re, im in {-1, 0, 1}.
#include <array>
#include <complex>

namespace dslash {

struct GammaEntry {
  int re, im;
  friend constexpr bool operator==(const GammaEntry&, const GammaEntry&) = default;
};
constexpr GammaEntry operator+(GammaEntry a, GammaEntry b) { return {a.re + b.re, a.im + b.im}; }
constexpr GammaEntry operator*(GammaEntry a, GammaEntry b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
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

// g5 = g0 g1 g2 g3 = diag(1, 1, -1, -1): the chirality of each spin component.
inline constexpr std::array<int, 4> kGamma5Diagonal = {1, 1, -1, -1};

template <class Real>
std::complex<Real> gamma_entry(int mu, int row, int col) {
  const GammaEntry e = kGamma[static_cast<std::size_t>(mu)][static_cast<std::size_t>(row)][static_cast<std::size_t>(col)];
  return {static_cast<Real>(e.re), static_cast<Real>(e.im)};
}

}  // namespace dslash
