#pragma once
// BLAS-1 on packed spinor buffers (a DslashKernel's spinor_view: plain arrays of reals of equal
// size), for the solvers. Every loop is a parallel pattern over a RangePolicy of the buffers' memory
// space's execution space with a by-value lambda on raw pointers: with CudaSpace buffers it runs on
// the GPU (compiled by nvcc, solvers/instantiate.hpp). Sums accumulate in double;
// the OpenMP reduction is deterministic for a given thread count.
//
// The real operations (axpby, axpy, xpay, norm2, re_dot) do not depend on where a complex number's
// real and imaginary parts are. The complex inner product does: PackedComplex says where they are.
#include <array>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "dslash/core.hpp"
#include "dslash/core/reducer.hpp"
#include "kernels/dslash_kernel.hpp"

namespace dslash {

// Where the complex numbers of a packed spinor buffer are (kernels/kernel_layout.hpp). In every
// layout the buffer is a run of chunks of imag_offset() reals, real parts and imaginary parts
// alternating, so complex number i (in that order, not the sites') has its real part at
// real_index(i) and its imaginary part imag_offset() further:
//   pairs (GPU)        re im re im ...                       chunk 1
//   LayoutRight        [W lanes of re][W lanes of im] ...    chunk W
//   LayoutLeft         [component 2k of every site][2k+1 ...] chunk blocks * sites * W
// The BLAS sums over all of them, so the order does not matter. A power-of-two chunk (the pairs,
// LayoutRight) needs no division, LayoutLeft's needs one (the layout's own arithmetic takes four).
struct PackedComplex {
  index_t sites = 0;  // outer sites of the buffer
  index_t blocks = 1, lanes = 1;
  KernelLayout::Strides strides{24, 24, 1};

  index_t count() const { return sites * blocks * 12 * lanes; }
  bool operator==(const PackedComplex& o) const {
    return sites == o.sites && blocks == o.blocks && lanes == o.lanes && strides.site == o.strides.site &&
           strides.block == o.strides.block && strides.component == o.strides.component && strides.pairs == o.strides.pairs;
  }
  DSLASH_INLINE_FUNCTION index_t imag_offset() const { return strides.pairs ? 1 : strides.component * lanes; }
  DSLASH_INLINE_FUNCTION index_t real_index(index_t i) const {
    const index_t chunk = imag_offset();
    if ((chunk & (chunk - 1)) == 0) return i + (i & ~(chunk - 1));  // (i / chunk) * chunk
    return i + (i / chunk) * chunk;
  }
};

// Where real c (0..23) of right-hand side r at site i of a field (its storage index) is in a packed
// buffer: for a folded layout (vnode) through the kernel's map of sites to slots, otherwise by
// arithmetic (right-hand side r is lane r % W of block r / W). Copied into kernels by value;
// slot_of_site and site_of_slot point into the buffers' memory space.
struct SpinorSlots {
  int lanes = 1;
  bool folded = false;
  KernelLayout::Strides strides{24, 24, 1};
  const index_t* slot_of_site = nullptr;  // folded: outer index * lanes + lane
  const index_t* site_of_slot = nullptr;  // folded: its inverse

  // The site whose reals come j-th in the buffer's order: walking j, a loop writes (or reads) the
  // buffer in order, not scattered over its lanes.
  DSLASH_INLINE_FUNCTION index_t site_in_order(index_t j) const { return folded ? site_of_slot[j] : j; }
  DSLASH_INLINE_FUNCTION index_t index(index_t i, int r, int c) const {
    if (!folded) return strides.index(i, r / lanes, c, r % lanes, lanes);
    const index_t slot = slot_of_site[i];
    return strides.index(slot / lanes, r, c, static_cast<int>(slot % lanes), lanes);
  }
  // The 24 reals of right-hand side r at site i: reals[c] = index(i, r, c), with the site's
  // arithmetic (two 64-bit divisions when folded) done once, not per real.
  struct SiteReals {
    index_t base, component;
    bool pairs;
    DSLASH_INLINE_FUNCTION index_t operator[](int c) const { return pairs ? base + (c & ~1) * component + (c & 1) : base + c * component; }
  };
  DSLASH_INLINE_FUNCTION SiteReals reals(index_t i, int r) const { return {index(i, r, 0), strides.component * lanes, strides.pairs}; }
};

// The complex layout of the kernel's spinor buffers (input and output alike).
template <class Real, class Space>
PackedComplex packed_complex(const DslashKernel<Real, Space>& kernel) {
  const KernelLayout& l = kernel.layout();
  return {kernel.output_sites() / (l.folded ? l.lanes : 1), l.blocks, l.lanes, kernel.spinor_strides()};
}

namespace blas_detail {
template <class Real, class Space>
void check_same_size(const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("blas: buffers \"" + x.label() + "\" and \"" + y.label() + "\" differ in size");
}
template <class Real, class Space>
void check_complex(const PackedComplex& c, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  check_same_size(x, y);
  if (static_cast<std::size_t>(2 * c.count()) != x.size())
    throw std::invalid_argument("blas: buffer \"" + x.label() + "\" does not have the complex layout's size");
}
}  // namespace blas_detail

// y = x, converting between precisions (buffers of the same layout, element by element)
template <class To, class From, class Space>
void convert_copy(const View<From, 1, LayoutRight, Space>& x, const View<To, 1, LayoutRight, Space>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("blas: buffers \"" + x.label() + "\" and \"" + y.label() + "\" differ in size");
  const From* xp = x.data();
  To* yp = y.data();
  parallel_for("blas_convert_copy", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())),
               DSLASH_LAMBDA(index_t i) { yp[i] = static_cast<To>(xp[i]); });
}

// x = value everywhere
template <class Real, class Space>
void fill(const View<Real, 1, LayoutRight, Space>& x, Real value) {
  Real* xp = x.data();
  parallel_for("blas_fill", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())), DSLASH_LAMBDA(index_t i) { xp[i] = value; });
}

// y = a x + b y
template <class Real, class Space>
void axpby(Real a, const View<Real, 1, LayoutRight, Space>& x, Real b, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_same_size(x, y);
  const Real* xp = x.data();
  Real* yp = y.data();
  parallel_for("blas_axpby", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())),
               DSLASH_LAMBDA(index_t i) { yp[i] = a * xp[i] + b * yp[i]; });
}

// y += a x
template <class Real, class Space>
void axpy(Real a, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  axpby(a, x, Real(1), y);
}

// y = x + a y
template <class Real, class Space>
void xpay(const View<Real, 1, LayoutRight, Space>& x, Real a, const View<Real, 1, LayoutRight, Space>& y) {
  axpby(Real(1), x, a, y);
}

// y = a x + b y, returning ||y||^2 of the new y from the same pass (the last pass of M_ee_hat in CGNR).
template <class Real, class Space>
double axpby_norm2(Real a, const View<Real, 1, LayoutRight, Space>& x, Real b, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_same_size(x, y);
  const Real* xp = x.data();
  Real* yp = y.data();
  double sum = 0;
  parallel_reduce("blas_axpby_norm2", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())),
                  DSLASH_LAMBDA(index_t i, double& acc) {
                    const Real v = a * xp[i] + b * yp[i];
                    yp[i] = v;
                    acc += static_cast<double>(v) * static_cast<double>(v);
                  }, sum);
  return sum;
}

// x += a p and r += b q, returning ||r||^2 of the new r: CG's update of the solution and the
// residual, one pass over four buffers instead of two axpys and a norm (seven).
template <class Real, class Space>
double axpy_axpy_norm2(Real a, const View<Real, 1, LayoutRight, Space>& p, const View<Real, 1, LayoutRight, Space>& x, Real b,
                       const View<Real, 1, LayoutRight, Space>& q, const View<Real, 1, LayoutRight, Space>& r) {
  blas_detail::check_same_size(p, x);
  blas_detail::check_same_size(q, r);
  blas_detail::check_same_size(p, q);
  const Real *pp = p.data(), *qp = q.data();
  Real *xp = x.data(), *rp = r.data();
  double sum = 0;
  parallel_reduce("blas_axpy_axpy_norm2", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())),
                  DSLASH_LAMBDA(index_t i, double& acc) {
                    xp[i] += a * pp[i];
                    const Real v = rp[i] + b * qp[i];
                    rp[i] = v;
                    acc += static_cast<double>(v) * static_cast<double>(v);
                  }, sum);
  return sum;
}

// Re <x, y> = sum x_i y_i over every real
template <class Real, class Space>
double re_dot(const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_same_size(x, y);
  const Real* xp = x.data();
  const Real* yp = y.data();
  double sum = 0;
  parallel_reduce("blas_re_dot", RangePolicy<typename Space::execution_space>(static_cast<index_t>(x.size())),
                  DSLASH_LAMBDA(index_t i, double& acc) { acc += static_cast<double>(xp[i]) * static_cast<double>(yp[i]); }, sum);
  return sum;
}

// ||x||^2
template <class Real, class Space>
double norm2(const View<Real, 1, LayoutRight, Space>& x) {
  return re_dot(x, x);
}

// <x, y> = sum conj(x) y over the complex numbers of a buffer of layout c.
template <class Real, class Space>
std::complex<double> dot(const PackedComplex& c, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_complex(c, x, y);
  const Real* xp = x.data();
  const Real* yp = y.data();
  std::array<double, 2> sum{};
  parallel_reduce("blas_dot", RangePolicy<typename Space::execution_space>(c.count()), DSLASH_LAMBDA(index_t i, std::array<double, 2>& acc) {
    const index_t re = c.real_index(i), im = re + c.imag_offset();
    const double xr = xp[re], xi = xp[im], yr = yp[re], yi = yp[im];
    acc[0] += xr * yr + xi * yi;
    acc[1] += xr * yi - xi * yr;
  }, sum);
  return {sum[0], sum[1]};
}

// y = a x + b y with complex a and b, over the complex numbers of a buffer of layout c.
template <class Real, class Space>
void caxpby(const PackedComplex& c, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
            const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_complex(c, x, y);
  const Real* xp = x.data();
  Real* yp = y.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag());
  parallel_for("blas_caxpby", RangePolicy<typename Space::execution_space>(c.count()), DSLASH_LAMBDA(index_t i) {
    const index_t re = c.real_index(i), im = re + c.imag_offset();
    const Real xr = xp[re], xi = xp[im], yr = yp[re], yi = yp[im];
    yp[re] = ar * xr - ai * xi + br * yr - bi * yi;
    yp[im] = ar * xi + ai * xr + br * yi + bi * yr;
  });
}

// z = a x + b y + c z with complex a, b, c: BiCGStab's p = r + beta (p - omega v) and
// x += alpha p + omega s, each one pass over three buffers instead of two caxpbys (six).
template <class Real, class Space>
void caxpbypcz(const PackedComplex& layout, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
               const View<Real, 1, LayoutRight, Space>& y, std::complex<double> c, const View<Real, 1, LayoutRight, Space>& z) {
  blas_detail::check_complex(layout, x, y);
  blas_detail::check_same_size(x, z);
  const Real *xp = x.data(), *yp = y.data();
  Real* zp = z.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag()),
             cr = static_cast<Real>(c.real()), ci = static_cast<Real>(c.imag());
  parallel_for("blas_caxpbypcz", RangePolicy<typename Space::execution_space>(layout.count()), DSLASH_LAMBDA(index_t i) {
    const index_t re = layout.real_index(i), im = re + layout.imag_offset();
    const Real xr = xp[re], xi = xp[im], yr = yp[re], yi = yp[im], zr = zp[re], zi = zp[im];
    zp[re] = ar * xr - ai * xi + br * yr - bi * yi + cr * zr - ci * zi;
    zp[im] = ar * xi + ai * xr + br * yi + bi * yr + cr * zi + ci * zr;
  });
}

// ||y||^2 and <w, y> of a buffer, summed in double.
struct NormDot {
  double norm2 = 0;
  std::complex<double> dot;
};

// y = a x + b y with complex a and b, returning ||y||^2 and <w, y> of the new y from the same pass:
// BiCGStab's last pass of M (v = M p with <r0, v>; t = M s with ||t||^2 and <s, t>) and its
// residual update (r = s - omega t with ||r||^2 and the next <r0, r>).
template <class Real, class Space>
NormDot caxpby_norm2_dot(const PackedComplex& c, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
                         const View<Real, 1, LayoutRight, Space>& y, const View<Real, 1, LayoutRight, Space>& w) {
  blas_detail::check_complex(c, x, y);
  blas_detail::check_same_size(x, w);
  const Real *xp = x.data(), *wp = w.data();
  Real* yp = y.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag());
  std::array<double, 3> sum{};
  parallel_reduce("blas_caxpby_norm2_dot", RangePolicy<typename Space::execution_space>(c.count()), DSLASH_LAMBDA(index_t i, std::array<double, 3>& acc) {
    const index_t re = c.real_index(i), im = re + c.imag_offset();
    const Real xr = xp[re], xi = xp[im], yr = yp[re], yi = yp[im];
    const Real vr = ar * xr - ai * xi + br * yr - bi * yi, vi = ar * xi + ai * xr + br * yi + bi * yr;
    yp[re] = vr;
    yp[im] = vi;
    const double dvr = vr, dvi = vi, dwr = wp[re], dwi = wp[im];
    acc[0] += dvr * dvr + dvi * dvi;
    acc[1] += dwr * dvr + dwi * dvi;
    acc[2] += dwr * dvi - dwi * dvr;
  }, sum);
  return {sum[0], {sum[1], sum[2]}};
}

}  // namespace dslash
