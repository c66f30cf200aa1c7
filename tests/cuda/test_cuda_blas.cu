// The solvers' BLAS passes on the GPU (solvers/blas.hpp: 16 bytes of reals a thread, in groups n/K
// apart) against the same passes on the host (one real an index), each from the same inputs: the
// buffers they write agree to a rounding of their precision (nvcc and the host compiler contract
// a * x + b * y into FMAs differently); plain sums to double's rounding, sums of what a pass wrote
// to a few roundings of its precision. Real passes run on a size that the group does not divide; complex
// ones on the GPU's pairs, on a LayoutLeft-like chunk and on chunks of 16 (each of the reductions' three
// ways to find a complex number's reals). Without a usable GPU they are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "gpu_test.hpp"
#include "dslash/core.hpp"
#include "solvers/blas.hpp"
#include "solvers/device_sums.hpp"

namespace dslash {
namespace {

class CudaBlas : public GpuTest<> {};

// n reals that differ from buffer to buffer (seed) and from element to element.
template <class Real>
HostBuffer<Real> values(std::size_t n, int seed) {
  HostBuffer<Real> h("values", n);
  for (std::size_t i = 0; i < n; ++i) h.data()[i] = static_cast<Real>(std::sin(0.37 * static_cast<double>(i) + seed) + 0.1 * seed);
  return h;
}

template <class Real>
void expect_same(const HostBuffer<Real>& host, const DeviceBuffer<Real>& device, const char* what) {
  const auto back = on_host(device);
  const double eps = sizeof(Real) == 4 ? 1e-6 : 1e-14;
  for (std::size_t i = 0; i < host.size(); ++i) {
    const double h = host.data()[i], d = back.data()[i];
    ASSERT_NEAR(d, h, eps * (1 + std::abs(h))) << what << " at " << i;
  }
}

// A pass that chains several operations on each element (bicgstab_update: five) may differ by a
// rounding of Real at each: `terms` bounds the sum of the magnitudes of what it adds up.
template <class Real>
void expect_close(const HostBuffer<Real>& host, const DeviceBuffer<Real>& device, double terms, const char* what) {
  const auto back = on_host(device);
  const double tolerance = 8 * std::numeric_limits<Real>::epsilon() * terms;
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_NEAR(back.data()[i], host.data()[i], tolerance) << what << " at " << i;
}

template <class Real>
double max_abs(const HostBuffer<Real>& h) {
  double m = 0;
  for (std::size_t i = 0; i < h.size(); ++i) m = std::max(m, std::abs(static_cast<double>(h.data()[i])));
  return m;
}

// A sum of products of the same inputs: only the order of the double additions differs.
// `scale` bounds the sum of the terms' magnitudes.
void expect_sum(double device, double host, double scale, const char* what) { EXPECT_NEAR(device, host, 1e-12 * scale) << what; }
// A sum over values the pass computed in Real: each may differ by a rounding of Real.
template <class Real>
void expect_fused_sum(double device, double host, double scale, const char* what) {
  EXPECT_NEAR(device, host, 8 * std::numeric_limits<Real>::epsilon() * scale) << what;
}

// Three buffers with the same values on the host and on the GPU.
template <class Real>
struct Buffers {
  HostBuffer<Real> hx, hy, hz;
  DeviceBuffer<Real> dx, dy, dz;
  explicit Buffers(std::size_t n)
      : hx(values<Real>(n, 1)), hy(values<Real>(n, 2)), hz(values<Real>(n, 3)), dx(on_device(hx)), dy(on_device(hy)), dz(on_device(hz)) {}
};

template <class Real>
void real_passes() {
  const std::size_t n = 24 * 1000 + 3;  // no group size divides it
  {
    Buffers<Real> b(n);
    axpby(Real(0.5), b.hx, Real(-1.25), b.hy);
    axpby(Real(0.5), b.dx, Real(-1.25), b.dy);
    expect_same(b.hy, b.dy, "axpby");
  }
  {
    Buffers<Real> b(n);
    const double h = axpby_norm2(Real(-2), b.hz, Real(0.75), b.hy), d = axpby_norm2(Real(-2), b.dz, Real(0.75), b.dy);
    expect_same(b.hy, b.dy, "axpby_norm2");
    expect_fused_sum<Real>(d, h, h, "axpby_norm2's sum");
  }
  {
    Buffers<Real> b(n);
    axpy_xpay(Real(0.25), b.dx, b.dz, b.dy, Real(1.5));
    axpy_xpay(Real(0.25), b.hx, b.hz, b.hy, Real(1.5));
    expect_same(b.hz, b.dz, "axpy_xpay's x");
    expect_same(b.hx, b.dx, "axpy_xpay's p");
  }
  {
    Buffers<Real> b(n);
    expect_sum(re_dot(b.dx, b.dz), re_dot(b.hx, b.hz), std::sqrt(norm2(b.hx) * norm2(b.hz)), "re_dot");
    fill(b.dx, Real(3));
    fill(b.hx, Real(3));
    expect_same(b.hx, b.dx, "fill");
    HostBuffer<double> hw("w", n);
    DeviceBuffer<double> dw("w", n);
    convert_copy(b.hz, hw);
    convert_copy(b.dz, dw);
    expect_same(hw, dw, "convert_copy");
  }
}

// The coefficients read from sums in device memory (DeviceRatio): the same buffers as the passes
// with the quotient given by the host, bit for bit (each element's arithmetic is the same), and
// axpby_norm2's sum left in memory with its host copy, to the rounding of a sum of n positive terms
// in double, (n - 1) eps (another kernel, whose launch shape, and so the order of its additions, may
// differ); a zero denominator leaves the buffers as they were.
template <class Real>
void ratio_passes() {
  const std::size_t n = 24 * 1000 + 3;
  DeviceSums<CudaSpace> sums(4);
  sums.set(0, 3.0);
  sums.set(1, -8.0);
  sums.set(3, 0.0);
  const Real q = static_cast<Real>(3.0 / -8.0);
  const DeviceRatio<Real> ratio{Real(-1), sums.on_device(0), sums.on_device(1)}, by_zero{Real(1), sums.on_device(0), sums.on_device(3)};
  Buffers<Real> given(n), read(n);
  axpby(-q, given.dx, Real(0.5), given.dy);
  axpby(ratio, read.dx, Real(0.5), read.dy);
  const double given_norm = axpby_norm2(Real(0.25), given.dz, -q, given.dy);
  axpby_norm2(Real(0.25), read.dz, ratio, read.dy, sums.into(2));
  axpy_xpay(-q, given.dx, given.dz, given.dy, q);
  axpy_xpay(ratio, read.dx, read.dz, read.dy, DeviceRatio<Real>{Real(1), ratio.num, ratio.den});
  const auto same = [](const DeviceBuffer<Real>& a, const DeviceBuffer<Real>& b, const char* what) {
    const auto ha = on_host(a), hb = on_host(b);
    for (std::size_t i = 0; i < ha.size(); ++i) ASSERT_EQ(ha.data()[i], hb.data()[i]) << what << " at " << i;
  };
  same(given.dx, read.dx, "p");
  same(given.dy, read.dy, "y");
  same(given.dz, read.dz, "x");
  EXPECT_NEAR(sums.read(2), given_norm, static_cast<double>(n) * std::numeric_limits<double>::epsilon() * given_norm) << "axpby_norm2's sum left in memory";
  // Sums launched before a read() are in without another wait: the set ones, and the reduction's.
  EXPECT_EQ(sums.read_without_wait(2), sums.read(2));
  EXPECT_EQ(sums.read_without_wait(1), -8.0);
  const HostBuffer<Real> before = values<Real>(n, 2);
  Buffers<Real> zero(n);
  axpby(by_zero, zero.dx, Real(1), zero.dy);
  expect_same(before, zero.dy, "a pass whose coefficient has a zero denominator");
}

template <class Real>
void complex_passes(const PackedComplex& c) {
  const auto n = static_cast<std::size_t>(2 * c.count());
  using C = std::complex<double>;
  {
    Buffers<Real> b(n);
    const C d = dot(c, b.dx, b.dy), h = dot(c, b.hx, b.hy);
    const double scale = std::sqrt(norm2(b.hx) * norm2(b.hy));
    expect_sum(d.real(), h.real(), scale, "dot, real part");
    expect_sum(d.imag(), h.imag(), scale, "dot, imaginary part");
  }
  {
    Buffers<Real> b(n);
    caxpby(c, C(0.5, -0.25), b.dx, C(-1, 0.5), b.dy);
    caxpby(c, C(0.5, -0.25), b.hx, C(-1, 0.5), b.hy);
    expect_same(b.hy, b.dy, "caxpby");
  }
  {
    Buffers<Real> b(n);
    caxpbypcz(c, C(1, 0), b.dx, C(0.3, 0.2), b.dy, C(-0.5, 1), b.dz);
    caxpbypcz(c, C(1, 0), b.hx, C(0.3, 0.2), b.hy, C(-0.5, 1), b.hz);
    expect_same(b.hz, b.dz, "caxpbypcz");
  }
  {
    Buffers<Real> b(n), more(n);  // w2 = more's x
    const NormDot d = caxpby_norm2_dot(c, C(0.75, 0.1), b.dx, C(0.2, -1), b.dy, b.dz, more.dx);
    const NormDot h = caxpby_norm2_dot(c, C(0.75, 0.1), b.hx, C(0.2, -1), b.hy, b.hz, more.hx);
    expect_same(b.hy, b.dy, "caxpby_norm2_dot");
    const double scale = std::sqrt(h.norm2 * norm2(b.hz)), scale2 = std::sqrt(h.norm2 * norm2(more.hx));
    expect_fused_sum<Real>(d.norm2, h.norm2, h.norm2, "caxpby_norm2_dot's norm");
    expect_fused_sum<Real>(d.dot.real(), h.dot.real(), scale, "caxpby_norm2_dot's dot, real part");
    expect_fused_sum<Real>(d.dot.imag(), h.dot.imag(), scale, "caxpby_norm2_dot's dot, imaginary part");
    expect_fused_sum<Real>(d.dot2.real(), h.dot2.real(), scale2, "caxpby_norm2_dot's second dot, real part");
    expect_fused_sum<Real>(d.dot2.imag(), h.dot2.imag(), scale2, "caxpby_norm2_dot's second dot, imaginary part");
    // Over x, which no pass here wrote: the same values on both sides.
    const auto [d1, d2] = dot2(c, b.dz, more.dx, b.dx);
    const auto [h1, h2] = dot2(c, b.hz, more.hx, b.hx);
    const double x_norm2 = norm2(b.hx), scale_z = std::sqrt(norm2(b.hz) * x_norm2), scale_w2 = std::sqrt(norm2(more.hx) * x_norm2);
    expect_sum(d1.real(), h1.real(), scale_z, "dot2's first, real part");
    expect_sum(d1.imag(), h1.imag(), scale_z, "dot2's first, imaginary part");
    expect_sum(d2.real(), h2.real(), scale_w2, "dot2's second, real part");
    expect_sum(d2.imag(), h2.imag(), scale_w2, "dot2's second, imaginary part");
  }
  {
    Buffers<Real> b(n), more(n);  // p, t, v = x, y, z; r, the solution and q from a second set
    const C alpha(0.75, 0.1), omega(0.2, -1), beta(-0.4, 0.3);
    // Every input is at most m in magnitude, so is each real or imaginary part of a product a z at
    // most 2 |a| m; q = r - omega t + beta (p - omega v) adds the most terms.
    double m = 0;
    for (const auto* h : {&b.hx, &b.hy, &b.hz, &more.hx, &more.hy}) m = std::max(m, max_abs(*h));
    const double terms = 2 * m * (std::abs(alpha) + 2 + 2 * std::abs(omega) + std::abs(beta) * (1 + 2 * std::abs(omega)));
    const double d = bicgstab_update(c, alpha, b.dx, omega, b.dy, b.dz, beta, more.dx, more.dy, more.dz);
    const double h = bicgstab_update(c, alpha, b.hx, omega, b.hy, b.hz, beta, more.hx, more.hy, more.hz);
    expect_close(more.hy, more.dy, terms, "bicgstab_update's solution");
    expect_close(more.hx, more.dx, terms, "bicgstab_update's residual");
    expect_close(more.hz, more.dz, terms, "bicgstab_update's direction");
    expect_fused_sum<Real>(d, h, h, "bicgstab_update's norm");
  }
}

// The GPU work of each test lives in a free function: nvcc's extended lambdas may not sit in a
// private member function such as GoogleTest's TestBody.
TEST_F(CudaBlas, RealPassesMatchTheHost) {
  real_passes<float>();
  real_passes<double>();
}

TEST_F(CudaBlas, PassesReadTheirCoefficientsFromSumsInDeviceMemory) {
  ratio_passes<float>();
  ratio_passes<double>();
}

TEST_F(CudaBlas, ComplexPassesMatchTheHost) {
  PackedComplex pairs{.sites = 1000, .blocks = 1, .lanes = 1};
  pairs.strides.pairs = true;
  const PackedComplex left{.sites = 1000, .blocks = 1, .lanes = 1, .strides = {1, 1000, 1000}};
  // Real and imaginary parts in chunks of 16 complex numbers (16 divides the 12000, not the 3000 or
  // 6000 between a group's elements): the reductions' general index path (pairs: adjacent, left: aligned).
  const PackedComplex chunks_of_16{.sites = 1000, .blocks = 1, .lanes = 1, .strides = {1, 1000, 16}};
  for (const PackedComplex& c : {pairs, left, chunks_of_16}) {
    complex_passes<float>(c);
    complex_passes<double>(c);
  }
}

}  // namespace
}  // namespace dslash
