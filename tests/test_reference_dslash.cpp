// The reference operator against physics identities (docs/CONVENTIONS.md). Everything else is tested
// against this operator, so it is tested against nothing but the definitions.
#include <gtest/gtest.h>

#include <numbers>

#include "dslash/lattice/gamma.hpp"
#include "kernels/reference_dslash.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using test::kSmallLattice;

class ReferenceDslash : public ::testing::Test {
 protected:
  ReferenceDslash() : u(kSmallLattice) { fill_random_su3(u, 2024); }

  SpinorField<double> random(Subset s, std::uint64_t seed) const {
    SpinorField<double> psi(kSmallLattice, s);
    fill_gaussian(psi, seed);
    return psi;
  }
  SpinorField<double> apply(const SpinorField<double>& in, Subset out_subset, bool dagger) const {
    SpinorField<double> out(kSmallLattice, out_subset);
    dslash_reference(u, in, out, dagger);
    return out;
  }
  // g5 from the library's table (test_gamma.cpp checks it is g0 g1 g2 g3 and diag(1, 1, -1, -1)).
  static void gamma5(SpinorField<double>& psi) {
    for (index_t i = 0; i < psi.sites(); ++i)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) psi(i, s, c) *= kGamma5Diagonal[static_cast<std::size_t>(s)];
  }

  GaugeField<double> u;
};

TEST_F(ReferenceDslash, Gamma5HermiticityG5DG5EqualsDDagger) {
  for (Subset out : {Subset::Even, Subset::Odd, Subset::Full}) {
    const Subset in = neighbour_subset(out);
    SpinorField<double> psi = random(in, 1);
    const SpinorField<double> d_dag = apply(psi, out, true);
    gamma5(psi);
    SpinorField<double> g5dg5 = apply(psi, out, false);
    gamma5(g5dg5);
    EXPECT_LT(test::relative_difference(g5dg5, d_dag), 1e-14) << to_string(out);
  }
}

TEST_F(ReferenceDslash, DDaggerIsTheAdjointOfD) {
  for (Subset out : {Subset::Even, Subset::Odd, Subset::Full}) {
    const Subset in = neighbour_subset(out);
    const SpinorField<double> phi = random(out, 3), psi = random(in, 4);
    // <phi, D psi> = <D^dagger phi, psi>, with D^dagger mapping `out` sites back to `in` sites.
    const std::complex<double> lhs = inner_product(phi, apply(psi, out, false));
    const std::complex<double> rhs = inner_product(apply(phi, in, true), psi);
    EXPECT_LT(std::abs(lhs - rhs), 1e-11 * std::abs(lhs)) << to_string(out);
  }
}

TEST_F(ReferenceDslash, GaugeCovariance) {
  const GaugeTransform<double> g(kSmallLattice, 77);
  for (bool dagger : {false, true}) {
    SpinorField<double> psi = random(Subset::Full, 5);
    SpinorField<double> g_d_psi = apply(psi, Subset::Full, dagger);
    apply_gauge_transform(g, g_d_psi);  // g D[U] psi

    GaugeField<double> ug(kSmallLattice);
    deep_copy(ug.view(), u.view());
    apply_gauge_transform(g, ug);
    apply_gauge_transform(g, psi);
    SpinorField<double> d_g_psi(kSmallLattice, Subset::Full);
    dslash_reference(ug, psi, d_g_psi, dagger);  // D[U^g] (g psi)
    EXPECT_LT(test::relative_difference(d_g_psi, g_d_psi), 1e-13);
  }
}

TEST_F(ReferenceDslash, FreeFieldPlaneWave) {
  GaugeField<double> unit(kSmallLattice);
  fill_unit(unit);
  const int n[4] = {1, 2, -1, 3};  // momentum p_mu = 2 pi n_mu / L_mu
  std::array<double, 4> p;
  for (std::size_t mu = 0; mu < 4; ++mu) p[mu] = 2 * std::numbers::pi * n[mu] / kSmallLattice.extent(static_cast<int>(mu));
  const std::array<std::complex<double>, 12> chi = {{{1, 0}, {0.5, -1}, {0, 2}, {-1, 1}, {0.25, 0}, {2, 2},
                                                     {0, -1}, {1, 1}, {-0.5, 0.5}, {3, 0}, {0, 0.75}, {-2, -1}}};
  for (bool dagger : {false, true}) {
    SpinorField<double> psi(kSmallLattice, Subset::Full), out(kSmallLattice, Subset::Full);
    for (site_t s = 0; s < kSmallLattice.volume(); ++s) {
      const Coord x = kSmallLattice.coords(s);
      double phase = 0;
      for (std::size_t mu = 0; mu < 4; ++mu) phase += p[mu] * x[mu];
      for (int sp = 0; sp < 4; ++sp)
        for (int c = 0; c < 3; ++c) psi(s, sp, c) = std::polar(1.0, phase) * chi[static_cast<std::size_t>(3 * sp + c)];
    }
    dslash_reference(unit, psi, out, dagger);
    // Expected, from the gamma matrices as the convention writes them (not the library's table):
    // sum_mu [(1 -/+ g_mu) e^{i p_mu} + (1 +/- g_mu) e^{-i p_mu}] psi = sum_mu [2 cos p_mu -/+ 2i sin p_mu g_mu] psi
    const double sign = dagger ? +1 : -1;
    double worst = 0;
    for (site_t s = 0; s < kSmallLattice.volume(); ++s)
      for (int row = 0; row < 4; ++row)
        for (int c = 0; c < 3; ++c) {
          std::complex<double> want = 0;
          for (std::size_t mu = 0; mu < 4; ++mu) {
            want += 2 * std::cos(p[mu]) * psi(s, row, c);
            for (int col = 0; col < 4; ++col)
              want += sign * std::complex<double>(0, 2 * std::sin(p[mu])) * test::kDeGrandRossi[mu][static_cast<std::size_t>(row)][static_cast<std::size_t>(col)] * psi(s, col, c);
          }
          worst = std::max(worst, std::abs(out(s, row, c) - want));
        }
    EXPECT_LT(worst, 1e-12) << (dagger ? "D^dagger" : "D");
  }
}

TEST_F(ReferenceDslash, CheckerboardedOperatorsSumToTheFullOne) {
  for (bool dagger : {false, true}) {
    const SpinorField<double> psi = random(Subset::Full, 9);
    const SpinorField<double> full = apply(psi, Subset::Full, dagger);
    SpinorField<double> sum(kSmallLattice, Subset::Full);
    for (Parity p : {Parity::Even, Parity::Odd}) {
      SpinorField<double> in(kSmallLattice, subset_of(other(p)));
      copy_sites(psi, in);
      SpinorField<double> part_full(kSmallLattice, Subset::Full);
      copy_sites(apply(in, subset_of(p), dagger), part_full);
      axpy(std::complex<double>(1), part_full, sum);
    }
    EXPECT_LT(test::relative_difference(sum, full), 1e-15);
  }
}

TEST_F(ReferenceDslash, WilsonMatrixIsGamma5Hermitian) {
  const double mass = 0.1;
  SpinorField<double> phi = random(Subset::Full, 12), psi = random(Subset::Full, 13);
  SpinorField<double> m_psi(kSmallLattice, Subset::Full);
  wilson_matrix_reference(u, psi, m_psi, mass);
  // M psi = (4 + m) psi - D psi / 2
  SpinorField<double> expect = apply(psi, Subset::Full, false);
  for (index_t k = 0; k < expect.sites() * 12; ++k) expect.data()[k] = (4 + mass) * psi.data()[k] - 0.5 * expect.data()[k];
  EXPECT_LT(test::relative_difference(m_psi, expect), 1e-15);
  // <phi, M psi> = <g5 M g5 phi, psi>
  gamma5(phi);
  SpinorField<double> g5mg5(kSmallLattice, Subset::Full);
  wilson_matrix_reference(u, phi, g5mg5, mass);
  gamma5(g5mg5);
  gamma5(phi);
  const std::complex<double> lhs = inner_product(phi, m_psi), rhs = inner_product(g5mg5, psi);
  EXPECT_LT(std::abs(lhs - rhs), 1e-11 * std::abs(lhs));
}

TEST_F(ReferenceDslash, RejectsMismatchedOperands) {
  const SpinorField<double> even = random(Subset::Even, 1), full = random(Subset::Full, 1);
  SpinorField<double> out_even(kSmallLattice, Subset::Even), out_full(kSmallLattice, Subset::Full);
  EXPECT_THROW(dslash_reference(u, even, out_even, false), std::invalid_argument);
  EXPECT_THROW(dslash_reference(u, full, out_even, false), std::invalid_argument);
  EXPECT_THROW(dslash_reference(u, even, out_full, false), std::invalid_argument);
  const SpinorField<double> other_lattice(Geometry({4, 4, 4, 4}), Subset::Odd);
  EXPECT_THROW(dslash_reference(u, other_lattice, out_even, false), std::invalid_argument);
}

}  // namespace
}  // namespace dslash
