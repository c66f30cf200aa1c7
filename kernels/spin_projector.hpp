#pragma once
// The Wilson hop's spin projectors, shared by the SIMD kernel body and the scalar face code, derived
// at compile time from the one gamma table (include/dslash/lattice/gamma.hpp). In the DeGrand-Rossi
// basis (docs/CONVENTIONS.md) each row of g_mu has one non-zero entry, a unit, so (1 + S g_mu) psi
// has two independent rows:
//   h0 = p0 + S k0 p[a0],  h1 = p1 + S k1 p[a1]
// and rows 2, 3 are multiples of them: r2 = S k2 h[b2], r3 = S k3 h[b3].
// Units k in {+1, -1, +i, -i} are written 1, -1, 2, -2: a sign flip or an i costs no multiply.
// For x, for instance: h0 = p0 + S i p3, h1 = p1 + S i p2; r2 = -S i h1, r3 = -S i h0.
#include "dslash/lattice/gamma.hpp"

namespace dslash::kernels {

struct Projector {
  int a0, k0, a1, k1, b2, k2, b3, k3;
};

// A unit entry as the projector writes it (1, -1, i, -i -> 1, -1, 2, -2), and back; 0 if not a unit.
constexpr int unit_code(GammaEntry e) {
  if (e.im == 0 && (e.re == 1 || e.re == -1)) return e.re;
  if (e.re == 0 && (e.im == 1 || e.im == -1)) return 2 * e.im;
  return 0;
}
constexpr GammaEntry unit_value(int code) {
  return code == 2 ? GammaEntry{0, 1} : code == -2 ? GammaEntry{0, -1} : GammaEntry{code, 0};
}

// Row `row` of g names its one non-zero column (the first, if there are several: the check below
// then fails).
constexpr int nonzero_column(const GammaMatrix& g, int row) {
  for (int col = 0; col < 4; ++col)
    if (!(g[row][col] == GammaEntry{0, 0})) return col;
  return 0;
}

// Rows 0, 1 read their non-zero entry as (a, k); rows 2, 3 as (b, k): row 2 of (1 + S g) is
// p2 + S k2 p[b2] = S k2 h[b2] when row b2 of g has its entry in column 2 and k_{b2} k2 = 1, which
// projector_is_exact checks.
constexpr Projector projector_of(const GammaMatrix& g) {
  const int a0 = nonzero_column(g, 0), a1 = nonzero_column(g, 1), b2 = nonzero_column(g, 2), b3 = nonzero_column(g, 3);
  return {a0, unit_code(g[0][a0]), a1, unit_code(g[1][a1]), b2, unit_code(g[2][b2]), b3, unit_code(g[3][b3])};
}

// Whether the rows the projector p builds are exactly those of 1 + S g, for S = +1 and -1.
constexpr bool projector_is_exact(const GammaMatrix& g, const Projector& p) {
  const int a[2] = {p.a0, p.a1}, k_upper[2] = {p.k0, p.k1}, b[2] = {p.b2, p.b3}, k_lower[2] = {p.k2, p.k3};
  for (int r = 0; r < 2; ++r)
    if (a[r] < 2 || a[r] > 3 || b[r] < 0 || b[r] > 1 || unit_code(unit_value(k_upper[r])) == 0 || unit_code(unit_value(k_lower[r])) == 0)
      return false;
  for (int s = -1; s <= 1; s += 2) {
    const GammaEntry sign{s, 0};
    GammaMatrix rows{};  // rows[i][j]: the coefficient of p_j in the projector's row i
    for (int r = 0; r < 2; ++r) {
      rows[r][r] = GammaEntry{1, 0};
      rows[r][a[r]] = sign * unit_value(k_upper[r]);
    }
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 4; ++j) rows[2 + r][j] = sign * unit_value(k_lower[r]) * rows[b[r]][j];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        if (!(rows[i][j] == GammaEntry{i == j ? 1 : 0, 0} + sign * g[i][j])) return false;
  }
  return true;
}

inline constexpr Projector kProjector[4] = {projector_of(kGamma[0]), projector_of(kGamma[1]), projector_of(kGamma[2]),
                                            projector_of(kGamma[3])};
static_assert(projector_is_exact(kGamma[0], kProjector[0]) && projector_is_exact(kGamma[1], kProjector[1]) &&
                  projector_is_exact(kGamma[2], kProjector[2]) && projector_is_exact(kGamma[3], kProjector[3]),
              "the gamma matrices are not in a chiral basis of units: the two-row spin projection does not hold");

// Projector sign S of a hop: the forward hop (x -> x + mu) takes (1 - g_mu) for D and (1 + g_mu)
// for D^dagger, the backward hop the other.
constexpr int projector_sign(bool forward, bool dagger) { return forward == dagger ? 1 : -1; }

}  // namespace dslash::kernels
