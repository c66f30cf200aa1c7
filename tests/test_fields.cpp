#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <omp.h>

#include "test_support.hpp"

namespace dslash {
namespace {

using test::kSmallLattice;

TEST(SpinorField, GaussianFillIsTheSameForAnyThreadCountAndSubset) {
  SpinorField<double> a(kSmallLattice, Subset::Full), b(kSmallLattice, Subset::Full);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  fill_gaussian(a, 7);
  omp_set_num_threads(std::max(2, threads));
  fill_gaussian(b, 7);
  omp_set_num_threads(threads);
  EXPECT_EQ(test::relative_difference(a, b), 0.0);

  SpinorField<double> odd(kSmallLattice, Subset::Odd), odd_from_full(kSmallLattice, Subset::Odd);
  fill_gaussian(odd, 7);
  copy_sites(a, odd_from_full);
  EXPECT_EQ(test::relative_difference(odd, odd_from_full), 0.0);

  // A unit Gaussian: mean |psi|^2 per real component is 1.
  EXPECT_NEAR(norm2(a) / (24.0 * static_cast<double>(kSmallLattice.volume())), 1.0, 0.05);
  SpinorField<double> c(kSmallLattice, Subset::Full);
  fill_gaussian(c, 8);
  EXPECT_GT(test::relative_difference(a, c), 0.1);
}

TEST(SpinorField, LinearAlgebra) {
  SpinorField<double> x(kSmallLattice, Subset::Even), y(kSmallLattice, Subset::Even);
  fill_gaussian(x, 1);
  fill_gaussian(y, 2);
  EXPECT_NEAR(inner_product(x, x).real(), norm2(x), 1e-9 * norm2(x));
  EXPECT_NEAR(inner_product(x, x).imag(), 0.0, 1e-9);
  const std::complex<double> xy = inner_product(x, y), yx = inner_product(y, x);
  EXPECT_NEAR(std::abs(xy - std::conj(yx)), 0.0, 1e-9);
  // |y + a x|^2 = |y|^2 + 2 Re(a <y, x>) + |a|^2 |x|^2
  const std::complex<double> a(0.5, -1.25);
  const double expect = norm2(y) + 2 * (a * yx).real() + std::norm(a) * norm2(x);
  axpy(a, x, y);
  EXPECT_NEAR(norm2(y), expect, 1e-9 * expect);
  SpinorField<double> full(kSmallLattice, Subset::Full);
  EXPECT_THROW(axpy(a, x, full), std::invalid_argument);
}

TEST(SpinorField, CopySitesZeroesTheMissingParity) {
  SpinorField<double> even(kSmallLattice, Subset::Even), full(kSmallLattice, Subset::Full);
  fill_gaussian(even, 3);
  copy_sites(even, full);
  EXPECT_NEAR(norm2(full), norm2(even), 1e-12 * norm2(even));
  for (site_t s = 0; s < kSmallLattice.volume(); ++s)
    if (kSmallLattice.parity(s) == 1) EXPECT_EQ(full(s, 2, 1), std::complex<double>(0));
    else EXPECT_EQ(full(s, 2, 1), even(Geometry::cb_index(s), 2, 1));
}

TEST(GaugeField, RandomLinksAreSpecialUnitary) {
  GaugeField<double> u(kSmallLattice);
  fill_random_su3(u, 11);
  for (site_t s = 0; s < kSmallLattice.volume(); s += 37)
    for (int mu = 0; mu < 4; ++mu) {
      const auto m = u.link(s, mu);
      const auto uu = m * adjoint(m);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) EXPECT_NEAR(std::abs(uu(a, b) - (a == b ? 1.0 : 0.0)), 0.0, 1e-13);
      const auto det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
                       m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
      EXPECT_NEAR(std::abs(det - 1.0), 0.0, 1e-13);
    }
}

TEST(GaugeField, UnitGaugeHasUnitPlaquetteAndTrace) {
  GaugeField<double> u(kSmallLattice);
  fill_unit(u);
  EXPECT_DOUBLE_EQ(plaquette(u), 1.0);
  EXPECT_DOUBLE_EQ(link_trace(u), 1.0);
}

TEST(GaugeField, PlaquetteIsGaugeInvariantAndLinkTraceIsNot) {
  GaugeField<double> u(kSmallLattice);
  fill_random_su3(u, 5);
  const double plaq = plaquette(u), trace = link_trace(u);
  apply_gauge_transform(GaugeTransform<double>(kSmallLattice, 6), u);
  EXPECT_NEAR(plaquette(u), plaq, 1e-13);
  EXPECT_GT(std::abs(link_trace(u) - trace), 1e-6);
}

TEST(GaugeField, PrecisionConversionRoundsEachComponent) {
  GaugeField<double> u(kSmallLattice);
  fill_random_su3(u, 5);
  const GaugeField<float> f = convert_precision<float>(u);
  EXPECT_EQ(f(17, 2, 1, 0), std::complex<float>(u(17, 2, 1, 0)));
  EXPECT_NEAR(plaquette(f), plaquette(u), 1e-6);
}

// A single-precision random field is the double one rounded, so it is SU(3) to rounding at any
// volume: made in single, one link of 48^4 x 4 missed unitarity by 1.2e-5, past the 1e-5 that
// gauge compression allows in single precision.
TEST(GaugeField, SinglePrecisionRandomLinksAreTheDoubleOnesRounded) {
  GaugeField<double> ud(kSmallLattice);
  GaugeField<float> uf(kSmallLattice);
  fill_random_su3(ud, 7);
  fill_random_su3(uf, 7);
  const GaugeField<float> rounded = convert_precision<float>(ud);
  ASSERT_EQ(0, std::memcmp(uf.data(), rounded.data(), static_cast<std::size_t>(kSmallLattice.volume()) * 36 * sizeof(std::complex<float>)));
  double worst = 0;
  for (site_t s = 0; s < kSmallLattice.volume(); ++s)
    for (int mu = 0; mu < 4; ++mu) {
      const auto m = uf.link(s, mu);
      const auto uu = m * adjoint(m);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) worst = std::max(worst, static_cast<double>(std::abs(uu(a, b) - std::complex<float>(a == b ? 1.0f : 0.0f))));
    }
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
}  // namespace dslash
