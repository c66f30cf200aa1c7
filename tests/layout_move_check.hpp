#pragma once
// convert() and add_and_zero() between a double and a single-precision operator's buffers, checked
// the same way on every backend. Where the two layouts differ (vnode and mrhs fold a different
// number of lanes in each precision) the values move through the layouts' slots; where they do not
// (naive) element by element. Both are exact: rounding to single is the fields' own, and an
// increment folded into double is y + x in double.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "dslash/lattice/field_ops.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash::test {

template <class Real>
std::vector<SpinorField<Real>> even_gaussians(const Geometry& g, int n, std::uint64_t seed) {
  std::vector<SpinorField<Real>> v;
  for (int r = 0; r < n; ++r) {
    SpinorField<double> full(g, Subset::Full), even(g, Subset::Even);
    fill_gaussian(full, seed + static_cast<std::uint64_t>(r));
    copy_sites(full, even);
    v.push_back(convert_precision<Real>(even));
  }
  return v;
}

template <class Real>
std::vector<SpinorField<Real>> even_fields(const Geometry& g, int n) {
  std::vector<SpinorField<Real>> v;
  for (int r = 0; r < n; ++r) v.emplace_back(g, Subset::Even);
  return v;
}

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
  const std::vector<SpinorField<double>> x = even_gaussians<double>(g, nrhs, seed);
  const auto xd = op_d.allocate("x_d"), back = op_d.allocate("back");
  const auto xf = op_f.allocate("x_f");
  op_d.pack(x, xd);
  convert(op_d, xd, op_f, xf);
  std::vector<SpinorField<float>> got = even_fields<float>(g, nrhs);
  op_f.unpack(xf, got);
  convert(op_f, xf, op_d, back);
  std::vector<SpinorField<double>> round_trip = even_fields<double>(g, nrhs);
  op_d.unpack(back, round_trip);
  for (int r = 0; r < nrhs; ++r) {
    const auto k = static_cast<std::size_t>(r);
    const SpinorField<float> expected = convert_precision<float>(x[k]);
    for (site_t i = 0; i < expected.sites(); ++i)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(got[k](i, s, c), expected(i, s, c)) << "rhs " << r << " site " << i;
          ASSERT_EQ(round_trip[k](i, s, c), std::complex<double>(expected(i, s, c))) << "rhs " << r << " site " << i;
        }
  }
}

// add_and_zero() folds a single-precision increment into a double vector and clears the increment;
// then the same between two double vectors.
template <class Space>
void expect_add_and_zero(const EvenOddWilson<double, Space>& op_d, const EvenOddWilson<float, Space>& op_f, std::uint64_t seed) {
  const Geometry& g = op_d.geometry();
  const int nrhs = op_d.config().nrhs;
  const std::vector<SpinorField<double>> y = even_gaussians<double>(g, nrhs, seed);
  const std::vector<SpinorField<float>> x = even_gaussians<float>(g, nrhs, seed + 100);
  const auto yd = op_d.allocate("y"), zd = op_d.allocate("z");
  const auto xf = op_f.allocate("x");
  op_d.pack(y, yd);
  op_f.pack(x, xf);
  add_and_zero(op_f, xf, op_d, yd);
  std::vector<SpinorField<double>> sum = even_fields<double>(g, nrhs);
  op_d.unpack(yd, sum);
  const auto expect_sum = [&](int times_y) {
    for (int r = 0; r < nrhs; ++r) {
      const auto k = static_cast<std::size_t>(r);
      for (site_t i = 0; i < y[k].sites(); ++i)
        for (int s = 0; s < 4; ++s)
          for (int c = 0; c < 3; ++c) {
            const std::complex<double> expected = times_y == 1 ? y[k](i, s, c) + std::complex<double>(x[k](i, s, c))
                                                               : y[k](i, s, c) + std::complex<double>(x[k](i, s, c)) + y[k](i, s, c);
            ASSERT_EQ(sum[k](i, s, c), expected) << "rhs " << r << " site " << i;
          }
    }
  };
  expect_sum(1);
  const auto xh = on_host(xf);
  for (std::size_t j = 0; j < xh.size(); ++j) ASSERT_EQ(xh.data()[j], 0.0f) << "real " << j << " of the increment";
  op_d.pack(y, zd);
  add_and_zero(op_d, zd, op_d, yd);  // the same precision: element by element in any layout
  op_d.unpack(yd, sum);
  expect_sum(2);
  const auto zh = on_host(zd);
  for (std::size_t j = 0; j < zh.size(); ++j) ASSERT_EQ(zh.data()[j], 0.0) << "real " << j;
}

}  // namespace dslash::test
