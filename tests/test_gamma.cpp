// The gamma basis against the convention written out (docs/CONVENTIONS.md), and the kernels' spin
// projectors against the same written-out matrices. Everything else (the reference operator, so
// every kernel test) builds on kGamma, so nothing here reads kGamma to make an expectation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <complex>

#include "dslash/lattice/gamma.hpp"
#include "kernels/spin_projector.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using Matrix = test::SpinMatrix;
using test::i;
using test::kDeGrandRossi;

const Matrix kGamma5 = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, -1}}};  // g5 = g0 g1 g2 g3, written out

Matrix library_gamma(int mu) {
  Matrix g;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) g[r][c] = gamma_entry<double>(mu, r, c);
  return g;
}
Matrix identity() {
  Matrix m{};
  for (int k = 0; k < 4; ++k) m[k][k] = 1;
  return m;
}
Matrix operator*(const Matrix& a, const Matrix& b) {
  Matrix m{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      for (int k = 0; k < 4; ++k) m[r][c] += a[r][k] * b[k][c];
  return m;
}
Matrix operator+(const Matrix& a, const Matrix& b) {
  Matrix m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m[r][c] = a[r][c] + b[r][c];
  return m;
}
Matrix scaled(double s, const Matrix& a) {
  Matrix m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m[r][c] = s * a[r][c];
  return m;
}
Matrix adjoint(const Matrix& a) {
  Matrix m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m[r][c] = std::conj(a[c][r]);
  return m;
}
// The entries are small integers: every product and sum here is exact.
void expect_equal(const Matrix& got, const Matrix& want) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[r][c], want[r][c]) << "[" << r << "][" << c << "]";
}

TEST(GammaMatrices, EveryEntryIsDeGrandRossi) {
  for (int mu = 0; mu < 4; ++mu) {
    SCOPED_TRACE(::testing::Message() << "g" << mu);
    expect_equal(library_gamma(mu), kDeGrandRossi[mu]);
  }
}

TEST(GammaMatrices, Gamma5IsTheProductOfTheFourAndItsDiagonalIsTheTable) {
  {
    SCOPED_TRACE("written-out g0 g1 g2 g3");
    expect_equal(kDeGrandRossi[0] * kDeGrandRossi[1] * kDeGrandRossi[2] * kDeGrandRossi[3], kGamma5);
  }
  {
    SCOPED_TRACE("the library's g0 g1 g2 g3");
    expect_equal(library_gamma(0) * library_gamma(1) * library_gamma(2) * library_gamma(3), kGamma5);
  }
  SCOPED_TRACE("kGamma5Diagonal");
  Matrix table{};
  for (int k = 0; k < 4; ++k) table[k][k] = kGamma5Diagonal[k];
  expect_equal(table, kGamma5);
}

TEST(GammaMatrices, CliffordAlgebraAndHermiticity) {
  for (int mu = 0; mu < 4; ++mu) {
    const Matrix g = library_gamma(mu);
    {
      SCOPED_TRACE(::testing::Message() << "g" << mu << "^dagger");
      expect_equal(adjoint(g), g);
    }
    for (int nu = 0; nu < 4; ++nu) {
      SCOPED_TRACE(::testing::Message() << "{g" << mu << ", g" << nu << "}");
      const Matrix h = library_gamma(nu);
      expect_equal(g * h + h * g, scaled(mu == nu ? 2 : 0, identity()));
    }
  }
}

// Row r of the spin projection as the kernels compute it (kernels/spin_projector.hpp): the
// coefficient of each p_j in h0, h1, S k2 h[b2] and S k3 h[b3].
Matrix kernel_projection(const kernels::Projector& p, int s) {
  const auto unit = [](int k) { return k == 2 ? i : k == -2 ? -i : std::complex<double>(k); };
  Matrix m{};
  const int a[2] = {p.a0, p.a1}, k_upper[2] = {p.k0, p.k1}, b[2] = {p.b2, p.b3}, k_lower[2] = {p.k2, p.k3};
  for (int r = 0; r < 2; ++r) {
    m[r][r] = 1;
    m[r][a[r]] += static_cast<double>(s) * unit(k_upper[r]);
  }
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j) m[2 + r][j] = static_cast<double>(s) * unit(k_lower[r]) * m[b[r]][j];
  return m;
}

TEST(SpinProjector, TheKernelsProjectorsAreOneMinusAndPlusGamma) {
  for (int mu = 0; mu < 4; ++mu)
    for (int s : {1, -1}) {
      SCOPED_TRACE(::testing::Message() << "1 + (" << s << ") g" << mu);
      expect_equal(kernel_projection(kernels::kProjector[mu], s), identity() + scaled(s, kDeGrandRossi[mu]));
    }
}

// The compile-time check on the derived table rejects any one wrong projector entry or gamma entry.
TEST(SpinProjector, TheCompileTimeCheckRejectsAnyWrongEntry) {
  for (int mu = 0; mu < 4; ++mu) {
    const kernels::Projector p = kernels::kProjector[mu];
    EXPECT_TRUE(kernels::projector_is_exact(kGamma[mu], p));
    const int fields[8] = {p.a0, p.k0, p.a1, p.k1, p.b2, p.k2, p.b3, p.k3};
    for (int f = 0; f < 8; ++f) {
      for (int wrong : {-2, -1, 0, 1, 2, 3}) {
        if (wrong == fields[f]) continue;
        int w[8];
        std::copy(fields, fields + 8, w);
        w[f] = wrong;
        EXPECT_FALSE(kernels::projector_is_exact(kGamma[mu], {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]}))
            << "g" << mu << " projector field " << f << " = " << wrong;
      }
    }
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        GammaMatrix g = kGamma[mu];
        g[r][c] = g[r][c] == GammaEntry{0, 0} ? GammaEntry{1, 0} : g[r][c] * GammaEntry{-1, 0};
        EXPECT_FALSE(kernels::projector_is_exact(g, p)) << "g" << mu << " [" << r << "][" << c << "] changed";
      }
  }
}

}  // namespace
}  // namespace dslash
