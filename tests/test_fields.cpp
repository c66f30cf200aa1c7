#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <omp.h>

#include "simd/fixed16.hpp"
#include "dslash/lattice/fixed16_field.hpp"
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

// Half precision (docs/CONVENTIONS.md, "Half precision storage"): per real of a site with norm n,
// the largest |real| of the site, |decoded - x| <= n * 2^-15: half a code is n / 65534, and the
// float roundings (the scales, a double input) add a few n * 2^-24. A site whose norm is below
// fixed16::kNormMin decodes as zeros.
template <class Real>
void check_fixed16_spinor_round_trip() {
  SpinorField<Real> x(kSmallLattice, Subset::Even);
  fill_gaussian(x, 11);
  enum : site_t { kZero, kLone, kAmong, kTiny, kSmall, kLarge };
  for (int spin = 0; spin < 4; ++spin)
    for (int colour = 0; colour < 3; ++colour) {
      x(kZero, spin, colour) = x(kLone, spin, colour) = 0;
      x(kTiny, spin, colour) *= Real(1e-32);  // below kNormMin: stored as zero
      x(kSmall, spin, colour) *= Real(1e-30);
      x(kLarge, spin, colour) *= Real(1e30);
    }
  x(kLone, 2, 1) = {Real(1e4), Real(-3e3)};  // one large component, zeros elsewhere
  x(kAmong, 0, 2) = {Real(1e3), 0};        // one large component among gaussian ones
  Fixed16SpinorField h(kSmallLattice, Subset::Even);
  encode_fixed16(x, h);
  SpinorField<Real> y(kSmallLattice, Subset::Even);
  decode_fixed16(h, y);

  const Real* in = reinterpret_cast<const Real*>(x.data());
  const Real* out = reinterpret_cast<const Real*>(y.data());
  for (site_t s = 0; s < x.sites(); ++s) {
    double n = 0;
    int largest_code = 0;
    for (int k = 0; k < 24; ++k) {
      n = std::max(n, std::fabs(static_cast<double>(in[s * 24 + k])));
      largest_code = std::max(largest_code, std::abs(static_cast<int>(h.codes()(s, k))));
    }
    const bool flushed = n < fixed16::kNormMin;
    EXPECT_EQ(flushed, s == kZero || s == kTiny) << "site " << s;
    EXPECT_EQ(largest_code, flushed ? 0 : 32767) << "site " << s << ": the largest real is the largest code";
    for (int k = 0; k < 24; ++k) {
      const double xk = in[s * 24 + k], yk = out[s * 24 + k];
      ASSERT_FALSE(std::isnan(yk)) << "site " << s << " real " << k;
      if (flushed) {
        EXPECT_EQ(yk, 0.0) << "site " << s << " real " << k;
      } else {
        EXPECT_LE(std::fabs(yk - xk), n * 0x1p-15) << "site " << s << " real " << k << " norm " << n;
      }
      if (xk == 0) {
        EXPECT_EQ(yk, 0.0) << "a zero stays exact: site " << s << " real " << k;
      }
    }
  }
  EXPECT_EQ(h.norms()(kZero), 0.0f);
  EXPECT_EQ(h.norms()(kLone), 1e4f);

  // Encoding a decoded field gives back its codes; a norm moves by a rounding at most (the largest
  // real decodes to 32767 * (norm * (1 / 32767)), the norm to within a few 2^-24 of itself).
  Fixed16SpinorField again(kSmallLattice, Subset::Even);
  encode_fixed16(y, again);
  EXPECT_EQ(0, std::memcmp(h.codes().data(), again.codes().data(), static_cast<std::size_t>(h.sites()) * 24 * sizeof(std::int16_t)));
  for (site_t s = 0; s < x.sites(); ++s) EXPECT_LE(std::fabs(again.norms()(s) - h.norms()(s)), 0x1p-22f * h.norms()(s)) << "site " << s;
}

TEST(Fixed16Field, SpinorRoundTripIsWithinTheFormatsBound) {
  check_fixed16_spinor_round_trip<float>();
  check_fixed16_spinor_round_trip<double>();
}

// Links have the fixed norm 1: per real |decoded - U| <= 2^-15.
template <class Real>
void check_fixed16_gauge_round_trip(const GaugeField<Real>& u) {
  Fixed16GaugeField h(kSmallLattice);
  encode_fixed16(u, h);
  GaugeField<Real> v(kSmallLattice);
  decode_fixed16(h, v);
  const Real* in = reinterpret_cast<const Real*>(u.data());
  const Real* out = reinterpret_cast<const Real*>(v.data());
  double worst = 0;
  for (index_t i = 0; i < kSmallLattice.volume() * 72; ++i) worst = std::max(worst, std::fabs(static_cast<double>(out[i]) - in[i]));
  EXPECT_LE(worst, 0x1p-15);
}

TEST(Fixed16Field, LinksRoundTripWithinHalfACodeAndOnlySu3IsAccepted) {
  GaugeField<double> ud(kSmallLattice);
  fill_random_su3(ud, 5);
  check_fixed16_gauge_round_trip(ud);
  check_fixed16_gauge_round_trip(convert_precision<float>(ud));
  fill_unit(ud);  // entries exactly 0 and 1: 1 is the largest code
  check_fixed16_gauge_round_trip(ud);

  GaugeField<float> bad(kSmallLattice);
  fill_random_su3(bad, 5);
  bad(17, 2, 1, 0) = {1.5f, 0.0f};
  Fixed16GaugeField h(kSmallLattice);
  try {
    encode_fixed16(bad, h);
    ADD_FAILURE() << "a link entry of 1.5 was encoded";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("site 17, direction 2"), std::string::npos) << e.what();
  }
}

TEST(Fixed16Field, BytesAndSiteSets) {
  EXPECT_EQ(Fixed16SpinorField::bytes_for(kSmallLattice, Subset::Even), 52u * static_cast<std::uint64_t>(kSmallLattice.half_volume()));
  EXPECT_EQ(Fixed16GaugeField::bytes_for(kSmallLattice), 144u * static_cast<std::uint64_t>(kSmallLattice.volume()));
  SpinorField<float> full(kSmallLattice, Subset::Full);
  Fixed16SpinorField even(kSmallLattice, Subset::Even);
  EXPECT_THROW(encode_fixed16(full, even), std::invalid_argument);
  EXPECT_THROW(decode_fixed16(even, full), std::invalid_argument);
}

}  // namespace
}  // namespace dslash
