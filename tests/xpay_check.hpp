#pragma once
// The kernels' xpay epilogue (DslashKernel::apply_xpay), checked the same way on every backend:
// out = a x + b D in, site by site, against the same kernel's plain D in, and the norm and inner
// products it returns against ||out||^2, <w, out> and <w2, out> summed here in double. Tolerances as the kernel
// tests (1e-5 single, 1e-12 double, relative).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/lattice/field_ops.hpp"
#include "kernels/dslash_kernel.hpp"

namespace dslash::test {

template <class Real, class Space>
void expect_xpay_epilogue(const DslashKernel<Real, Space>& d, std::uint64_t seed) {
  const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
  const Geometry& geom = d.geometry();
  const int nrhs = d.config().nrhs;
  std::vector<SpinorField<Real>> in_fields, x_fields, w_fields, w2_fields;
  for (int r = 0; r < nrhs; ++r) {
    fill_gaussian(in_fields.emplace_back(geom, d.in_subset()), seed + static_cast<std::uint64_t>(r));
    fill_gaussian(x_fields.emplace_back(geom, d.in_subset()), seed + 1000 + static_cast<std::uint64_t>(r));
    fill_gaussian(w_fields.emplace_back(geom, d.in_subset()), seed + 2000 + static_cast<std::uint64_t>(r));
    fill_gaussian(w2_fields.emplace_back(geom, d.in_subset()), seed + 3000 + static_cast<std::uint64_t>(r));
  }
  const auto in = d.allocate_spinors("xpay_in"), x = d.allocate_spinors("xpay_x"), w = d.allocate_spinors("xpay_w"), plain = d.allocate_spinors("xpay_plain"),
             fused = d.allocate_spinors("xpay_out"), fused_w = d.allocate_spinors("xpay_out_w"), w2 = d.allocate_spinors("xpay_w2");
  d.pack(in_fields, in);
  d.pack(x_fields, x);  // any values in every slot: unpacked below as output sites, as the epilogue reads them
  d.pack(w_fields, w);
  d.pack(w2_fields, w2);
  const Real a = Real(1.75), b = Real(-0.3);
  d.apply(in, plain);
  const NormDot sums = d.apply_xpay(in, fused, {.a = a, .x = &x, .b = b});
  // The inner product is built for whole links, and not for the GPU's naive kernel: there it refuses.
  const bool with_dot = d.fuses_xpay(false, true);
  if (!with_dot) {
    EXPECT_THROW(d.apply_xpay(in, fused_w, {.a = a, .x = &x, .b = b, .w = &w}), std::invalid_argument) << d.label();
  }
  EXPECT_THROW(d.apply_xpay(in, fused_w, {.a = a, .x = &x, .b = b, .w2 = &w2}), std::invalid_argument) << d.label() << ": a second inner product alone";
  const NormDot sums_one = with_dot ? d.apply_xpay(in, fused_w, {.a = a, .x = &x, .b = b, .w = &w}) : NormDot{};
  const NormDot sums_w = with_dot ? d.apply_xpay(in, fused_w, {.a = a, .x = &x, .b = b, .w = &w, .w2 = &w2}) : NormDot{};
  // Without waiting (a solver's coefficient): the norm left in the space's memory.
  const auto fused_into = d.allocate_spinors("xpay_out_into");
  View<double, 1, LayoutRight, Space> norm_into("xpay_norm_into", 1);
  d.apply_xpay(in, fused_into, {.a = a, .x = &x, .b = b, .norm_into = ReduceInto<double>{norm_into.data(), nullptr}});
  const auto norm_into_host = create_mirror_view(norm_into);
  deep_copy(norm_into_host, norm_into);

  std::vector<SpinorField<Real>> plain_out, fused_out, fused_w_out, x_out, w_out;
  d.unpack(plain, plain_out);
  d.unpack(fused, fused_out);
  d.unpack(fused_w, fused_w_out);
  d.unpack(x, x_out);
  d.unpack(w, w_out);
  std::vector<SpinorField<Real>> w2_out, fused_into_out;
  d.unpack(w2, w2_out);
  d.unpack(fused_into, fused_into_out);
  double expect_norm2 = 0, w_norm2 = 0, w2_norm2 = 0;
  std::complex<double> expect_dot = 0, expect_dot2 = 0;
  for (int r = 0; r < nrhs; ++r) {
    const auto k = static_cast<std::size_t>(r);
    SpinorField<double> expect(geom, d.out_subset());
    for (site_t s = 0; s < expect.sites(); ++s)
      for (int sp = 0; sp < 4; ++sp)
        for (int c = 0; c < 3; ++c) {
          const std::complex<double> z = static_cast<double>(a) * std::complex<double>(x_out[k](s, sp, c)) +
                                         static_cast<double>(b) * std::complex<double>(plain_out[k](s, sp, c));
          expect(s, sp, c) = z;
          const std::complex<double> out(fused_out[k](s, sp, c)), wv(w_out[k](s, sp, c)), w2v(w2_out[k](s, sp, c));
          expect_norm2 += std::norm(out);
          w_norm2 += std::norm(wv);
          w2_norm2 += std::norm(w2v);
          expect_dot += std::conj(wv) * out;
          expect_dot2 += std::conj(w2v) * out;
        }
    EXPECT_LT(relative_difference(fused_out[k], expect), tolerance) << d.label() << " " << to_string(d.out_subset()) << " rhs " << r;
    if (with_dot) {
      EXPECT_EQ(relative_difference(fused_w_out[k], fused_out[k]), 0.0) << d.label() << ": the inner product changed the output, rhs " << r;
    }
    EXPECT_EQ(relative_difference(fused_into_out[k], fused_out[k]), 0.0) << d.label() << ": apply_xpay's output with norm_into, rhs " << r;
  }
  const std::string where = d.label() + " " + to_string(d.out_subset());
  EXPECT_NEAR(sums.norm2, expect_norm2, tolerance * expect_norm2) << where;
  EXPECT_EQ(norm_into_host(0), sums.norm2) << where << ": the norm left in memory, from the same launch shape";
  EXPECT_EQ(sums.dot, std::complex<double>(0)) << where << ": an inner product without w";
  if (!with_dot) return;
  // The kernels with and without the inner products write the same bits (above); their norms are the
  // same sum in the same order on a CPU (its partials follow the span alone), and on a GPU in a tree
  // whose shape follows each kernel's own block size (set by its registers), so there to the
  // rounding of a double sum.
  const double same_sum = Space::host_accessible ? 0.0 : 1e-13 * sums.norm2;
  EXPECT_NEAR(sums_w.norm2, sums.norm2, same_sum) << where;
  // |<w, out>| <= ||w|| ||out||: the scale of the sum's rounding.
  const double dot_scale = std::sqrt(w_norm2 * expect_norm2);
  EXPECT_NEAR(sums_w.dot.real(), expect_dot.real(), tolerance * dot_scale) << where;
  EXPECT_NEAR(sums_w.dot.imag(), expect_dot.imag(), tolerance * dot_scale) << where;
  const double dot2_scale = std::sqrt(w2_norm2 * expect_norm2);
  EXPECT_NEAR(sums_w.dot2.real(), expect_dot2.real(), tolerance * dot2_scale) << where;
  EXPECT_NEAR(sums_w.dot2.imag(), expect_dot2.imag(), tolerance * dot2_scale) << where;
  // With w alone, the second inner product is the first's (w2 = w), bit for bit.
  EXPECT_EQ(sums_one.norm2, sums_w.norm2) << where;
  EXPECT_EQ(sums_one.dot, sums_w.dot) << where;
  EXPECT_EQ(sums_one.dot2, sums_one.dot) << where;
}

// A kernel that cannot fuse the epilogue says so (fuses_xpay) and refuses it with `reason`, writing nothing.
template <class Real, class Space>
void expect_xpay_refused(const DslashKernel<Real, Space>& d, const std::string& reason) {
  EXPECT_FALSE(d.fuses_xpay()) << d.label();
  const auto v = d.allocate_spinors("xpay_refused");
  try {
    d.apply_xpay(v, d.allocate_spinors("xpay_refused_out"), {.x = &v});
    ADD_FAILURE() << d.label() << ": apply_xpay ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
  View<double, 1, LayoutRight, Space> norm("xpay_refused_norm", 1);
  EXPECT_THROW(d.apply_xpay(v, d.allocate_spinors("xpay_refused_out"), {.x = &v, .norm_into = ReduceInto<double>{norm.data(), nullptr}}),
               std::invalid_argument)
      << d.label();
}

}  // namespace dslash::test
