#pragma once
// convert(), add_and_zero() and convert_difference() between a double and a single-precision
// operator's buffers, checked the same way on every backend. Where the two layouts differ (vnode and mrhs fold a different
// number of lanes in each precision) the values move through the layouts' slots; where they do not
// (naive) element by element. Both are exact: rounding to single is the fields' own, and an
// increment folded into double is y + x in double.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "dslash/lattice/field_ops.hpp"
#include "solvers/device_sums.hpp"
#include "solvers/wilson_operator.hpp"
#include "test_support.hpp"

namespace dslash::test {

// The buffer's reals on the host (the buffer itself where it is there).
template <class Real, class Space>
auto on_host(const View<Real, 1, LayoutRight, Space>& v) {
  const auto h = create_mirror_view(v);
  deep_copy(h, v);
  return h;
}

// convert() double -> single is the fields rounded to single, and single -> double gives them back.
template <class Space>
void expect_convert_between_precisions(const EvenOddWilson<double, Space>& op_d, const EvenOddWilson<float, Space>& op_f, std::uint64_t seed) {
  const Geometry& g = op_d.geometry();
  const int nrhs = op_d.config().nrhs;
  const std::vector<SpinorField<double>> x = gaussians(g, Subset::Even, nrhs, seed);
  const auto xd = op_d.allocate("x_d"), back = op_d.allocate("back");
  const auto xf = op_f.allocate("x_f");
  op_d.pack(x, xd);
  convert(op_d, xd, op_f, xf);
  std::vector<SpinorField<float>> got = empty_fields<float>(g, Subset::Even, nrhs);
  op_f.unpack(xf, got);
  convert(op_f, xf, op_d, back);
  std::vector<SpinorField<double>> round_trip = empty_fields(g, Subset::Even, nrhs);
  op_d.unpack(back, round_trip);
  for (int r = 0; r < nrhs; ++r) {
    const auto k = static_cast<std::size_t>(r);
    const SpinorField<float> expected = convert_precision<float>(x[k]);
    for (site_t site = 0; site < expected.sites(); ++site)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(got[k](site, s, c), expected(site, s, c)) << "rhs " << r << " site " << site;
          ASSERT_EQ(round_trip[k](site, s, c), std::complex<double>(expected(site, s, c))) << "rhs " << r << " site " << site;
        }
  }
}

// add_and_zero() folds a single-precision increment into a double vector and clears the increment;
// then the same between two double vectors.
template <class Space>
void expect_add_and_zero(const EvenOddWilson<double, Space>& op_d, const EvenOddWilson<float, Space>& op_f, std::uint64_t seed) {
  const Geometry& g = op_d.geometry();
  const int nrhs = op_d.config().nrhs;
  const std::vector<SpinorField<double>> y = gaussians(g, Subset::Even, nrhs, seed);
  const std::vector<SpinorField<float>> x = gaussians<float>(g, Subset::Even, nrhs, seed + 100);
  const auto yd = op_d.allocate("y"), zd = op_d.allocate("z");
  const auto xf = op_f.allocate("x");
  op_d.pack(y, yd);
  op_f.pack(x, xf);
  add_and_zero(op_f, xf, op_d, yd);
  std::vector<SpinorField<double>> sum = empty_fields(g, Subset::Even, nrhs);
  op_d.unpack(yd, sum);
  // y + x, and y + x + y once y has been folded in again.
  const auto expect_sum = [&](bool y_twice) {
    for (int r = 0; r < nrhs; ++r) {
      const auto k = static_cast<std::size_t>(r);
      for (site_t site = 0; site < y[k].sites(); ++site)
        for (int s = 0; s < 4; ++s)
          for (int c = 0; c < 3; ++c) {
            std::complex<double> expected = y[k](site, s, c) + std::complex<double>(x[k](site, s, c));
            if (y_twice) expected += y[k](site, s, c);
            ASSERT_EQ(sum[k](site, s, c), expected) << "rhs " << r << " site " << site;
          }
    }
  };
  expect_sum(false);
  const auto xh = on_host(xf);
  for (std::size_t j = 0; j < xh.size(); ++j) ASSERT_EQ(xh.data()[j], 0.0f) << "real " << j << " of the increment";
  op_d.pack(y, zd);
  add_and_zero(op_d, zd, op_d, yd);  // the same precision: element by element in any layout
  op_d.unpack(yd, sum);
  expect_sum(true);
  const auto zh = on_host(zd);
  for (std::size_t j = 0; j < zh.size(); ++j) ASSERT_EQ(zh.data()[j], 0.0) << "real " << j;

  // With a pending term c p, c = -3/4 read from sums where the pass runs: y + x + c p, whose c p is
  // exact in double, so that a fused multiply-add rounds it as the sum below does.
  const std::vector<SpinorField<float>> p = gaussians<float>(g, Subset::Even, nrhs, seed + 200);
  const auto pf = op_f.allocate("p");
  op_f.pack(x, xf);
  op_f.pack(p, pf);
  op_d.pack(y, yd);
  DeviceSums<Space> sums(2);
  sums.set(0, 3.0);
  sums.set(1, 4.0);
  add_and_zero(op_f, xf, DeviceRatio<float>{-1.0f, sums.on_device(0), sums.on_device(1)}, pf, op_d, yd);
  op_d.unpack(yd, sum);
  for (int r = 0; r < nrhs; ++r) {
    const auto k = static_cast<std::size_t>(r);
    for (site_t site = 0; site < y[k].sites(); ++site)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) {
          const std::complex<double> expected = y[k](site, s, c) + std::complex<double>(x[k](site, s, c)) - 0.75 * std::complex<double>(p[k](site, s, c));
          ASSERT_EQ(sum[k](site, s, c), expected) << "rhs " << r << " site " << site;
        }
  }
  const auto xh2 = on_host(xf);
  for (std::size_t j = 0; j < xh2.size(); ++j) ASSERT_EQ(xh2.data()[j], 0.0f) << "real " << j << " of the increment";
}

// convert_difference() writes x - y rounded to single into the single operator's layout and returns
// ||x - y||^2 in double, whose terms it may add in any order: within (n - 1) eps of the sum.
template <class Space>
void expect_convert_difference(const EvenOddWilson<double, Space>& op_d, const EvenOddWilson<float, Space>& op_f, std::uint64_t seed) {
  const Geometry& g = op_d.geometry();
  const int nrhs = op_d.config().nrhs;
  const std::vector<SpinorField<double>> x = gaussians(g, Subset::Even, nrhs, seed), y = gaussians(g, Subset::Even, nrhs, seed + 1);
  const auto xd = op_d.allocate("x"), yd = op_d.allocate("y");
  const auto df = op_f.allocate("difference");
  op_d.pack(x, xd);
  op_d.pack(y, yd);
  const double norm2 = convert_difference(op_d, xd, yd, op_f, df);
  std::vector<SpinorField<float>> got = empty_fields<float>(g, Subset::Even, nrhs);
  op_f.unpack(df, got);
  double expected_norm2 = 0, terms = 0;
  for (int r = 0; r < nrhs; ++r) {
    const auto k = static_cast<std::size_t>(r);
    for (site_t site = 0; site < x[k].sites(); ++site)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) {
          const std::complex<double> d = x[k](site, s, c) - y[k](site, s, c);
          ASSERT_EQ(got[k](site, s, c), std::complex<float>(d)) << "rhs " << r << " site " << site;
          expected_norm2 += std::norm(d);
          terms += 2;
        }
  }
  EXPECT_NEAR(norm2, expected_norm2, terms * std::numeric_limits<double>::epsilon() * expected_norm2);
}

}  // namespace dslash::test
