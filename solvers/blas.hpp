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

// Where the complex numbers of a packed spinor buffer are (kernels/kernel_layout.hpp): number i,
// counted lane fastest, then spin-colour k (0..11), block, outer site, has its real part at
// strides.index(site, block, 2k, lane, lanes) and its imaginary part imag_offset() further.
struct PackedComplex {
  index_t sites = 0;  // outer sites of the buffer
  index_t blocks = 1, lanes = 1;
  KernelLayout::Strides strides{24, 24, 1};

  index_t count() const { return sites * blocks * 12 * lanes; }
  bool operator==(const PackedComplex& o) const {
    return sites == o.sites && blocks == o.blocks && lanes == o.lanes && strides.site == o.strides.site &&
           strides.block == o.strides.block && strides.component == o.strides.component;
  }
  DSLASH_INLINE_FUNCTION index_t real_index(index_t i) const {
    const index_t lane = i % lanes, j = i / lanes;
    const index_t k = j % 12, sb = j / 12;
    return strides.index(sb / blocks, sb % blocks, static_cast<int>(2 * k), static_cast<int>(lane), static_cast<int>(lanes));
  }
  DSLASH_INLINE_FUNCTION index_t imag_offset() const { return strides.pairs ? 1 : strides.component * lanes; }
};

// Where real c (0..23) of right-hand side r at site i of a field (its storage index) is in a packed
// buffer: for a folded layout (vnode) through the kernel's map of sites to slots, otherwise by
// arithmetic (right-hand side r is lane r % W of block r / W). Copied into kernels by value;
// slot_of_site points into the buffers' memory space.
struct SpinorSlots {
  int lanes = 1;
  bool folded = false;
  KernelLayout::Strides strides{24, 24, 1};
  const index_t* slot_of_site = nullptr;  // folded: outer index * lanes + lane

  DSLASH_INLINE_FUNCTION index_t index(index_t i, int r, int c) const {
    if (!folded) return strides.index(i, r / lanes, c, r % lanes, lanes);
    const index_t slot = slot_of_site[i];
    return strides.index(slot / lanes, r, c, static_cast<int>(slot % lanes), lanes);
  }
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
  blas_detail::check_same_size(x, y);
  if (static_cast<std::size_t>(2 * c.count()) != x.size())
    throw std::invalid_argument("blas: buffer \"" + x.label() + "\" does not have the complex layout's size");
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
  blas_detail::check_same_size(x, y);
  if (static_cast<std::size_t>(2 * c.count()) != x.size())
    throw std::invalid_argument("blas: buffer \"" + x.label() + "\" does not have the complex layout's size");
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

}  // namespace dslash
