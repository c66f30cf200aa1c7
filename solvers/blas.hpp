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
#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

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

  DSLASH_INLINE_FUNCTION index_t index(index_t i, int r, int c) const {
    if (!folded) return strides.index(i, r / lanes, c, r % lanes, lanes);
    const index_t slot = slot_of_site[i];
    return strides.index(slot / lanes, r, c, static_cast<int>(slot % lanes), lanes);
  }
  // Where real c of a (site, right-hand side) is from its real 0: index(i, r, c) = index(i, r, 0) +
  // offsets()[c] for every one, so a loop does a site's arithmetic (two 64-bit divisions when
  // folded) once, not per real.
  struct ComponentOffsets {
    index_t component;
    bool pairs;
    DSLASH_INLINE_FUNCTION index_t operator[](int c) const { return pairs ? (c & ~1) * component + (c & 1) : c * component; }
  };
  DSLASH_INLINE_FUNCTION ComponentOffsets offsets() const { return {strides.component * lanes, strides.pairs}; }
};

// The complex layout of the kernel's spinor buffers (input and output alike).
template <class Real, class Space>
PackedComplex packed_complex(const DslashKernel<Real, Space>& kernel) {
  const KernelLayout& l = kernel.layout();
  return {kernel.output_sites() / (l.folded ? l.lanes : 1), l.blocks, l.lanes, kernel.spinor_strides()};
}

// A coefficient that a pass reads when it runs: scale * (num / den) rounded to Real, with num and
// den sums that earlier launches left in the execution space's memory (solvers/device_sums.hpp:
// CG's alpha = gamma / ||M p||^2), so the host launches the pass without waiting for them. The passes
// that take one (axpby and its forms) take a plain Real as well; on the host, where the sums are in
// when their reductions return, it is read once before the pass.
// A zero denominator reads as zero: the pass then changes nothing, and the host, which finds the
// breakdown at its next wait, stops with its vectors intact.
template <class Real>
struct DeviceRatio {
  Real scale;
  const double* num;
  const double* den;
  DSLASH_INLINE_FUNCTION Real operator()() const { return *den == 0 ? Real(0) : scale * static_cast<Real>(*num / *den); }
};

template <class A, class Real>
concept CoefficientOf = std::same_as<A, Real> || std::same_as<A, DeviceRatio<Real>>;

namespace blas_detail {
template <class Real>
DSLASH_INLINE_FUNCTION Real value(Real a) {
  return a;
}
template <class Real>
DSLASH_INLINE_FUNCTION Real value(const DeviceRatio<Real>& a) {
  return a();
}
// Whether a pass in Space with coefficients A... reads one on the host first (plain Reals then).
template <class Space, class... A>
inline constexpr bool reads_ratio_on_host = Space::host_accessible && (!std::is_arithmetic_v<A> || ...);

// (Buffers of any precisions: a conversion's two as well.)
template <class X, class Y, class Space>
void check_same_size(const View<X, 1, LayoutRight, Space>& x, const View<Y, 1, LayoutRight, Space>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("blas: buffers \"" + x.label() + "\" and \"" + y.label() + "\" differ in size");
}
template <class Real, class Space>
void check_complex(const PackedComplex& c, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  check_same_size(x, y);
  if (static_cast<std::size_t>(2 * c.count()) != x.size())
    throw std::invalid_argument("blas: buffer \"" + x.label() + "\" does not have the complex layout's size");
}

// A pass gives each index of its RangePolicy K elements, n/K apart (rounded up): on a GPU a thread
// then has K loads of each buffer in flight, and each load is still coalesced across its warp (one
// 4-byte real a thread keeps too few bytes in flight: docs/history/HISTORY.md, "GPU: BLAS passes 16
// bytes a thread"). On a CPU, one element an index keeps every pass a plain stream.
template <class Real, class Space>
inline constexpr int kGroup = std::is_same_v<Space, HostSpace> ? 1 : static_cast<int>(16 / sizeof(Real));

// The elements of one index: i, i + m, ..., i + (K - 1) m, those below n.
template <int K>
struct Strided {
  index_t i, m, n;
  DSLASH_INLINE_FUNCTION index_t at(int j) const { return i + j * m; }
  DSLASH_INLINE_FUNCTION bool has(int j) const { return K == 1 || at(j) < n; }
  // All loads before any store: the compiler cannot move a load across a store to a buffer that
  // might be the same.
  template <class T>
  DSLASH_INLINE_FUNCTION void load(const T* p, T (&v)[K]) const {
    for (int j = 0; j < K; ++j) v[j] = has(j) ? p[at(j)] : T(0);
  }
  template <class T>
  DSLASH_INLINE_FUNCTION void store(T* p, const T (&v)[K]) const {
    for (int j = 0; j < K; ++j)
      if (has(j)) p[at(j)] = v[j];
  }
};

template <class Real, class Space, int K = kGroup<Real, Space>, class F>
void for_each_group(const char* label, index_t n, const F& f) {
  const index_t m = (n + K - 1) / K;
  parallel_for(label, RangePolicy<typename Space::execution_space>(m), DSLASH_LAMBDA(index_t i) { f(Strided<K>{i, m, n}); });
}

template <class T>
struct Summed {
  using type = T;
};
template <class T>
struct Summed<ReduceInto<T>> {
  using type = T;
};

// sum: a T, or a ReduceInto<T> (the total left in memory).
template <class Real, class Space, int K = kGroup<Real, Space>, class Sum, class F>
void reduce_groups(const char* label, index_t n, const F& f, Sum& sum) {
  using T = typename Summed<std::remove_const_t<Sum>>::type;
  const index_t m = (n + K - 1) / K;
  parallel_reduce(label, RangePolicy<typename Space::execution_space>(m), DSLASH_LAMBDA(index_t i, T& acc) { f(Strided<K>{i, m, n}, acc); }, sum);
}

}  // namespace blas_detail

// y = x, converting between precisions (buffers of the same layout, element by element)
template <class To, class From, class Space>
void convert_copy(const View<From, 1, LayoutRight, Space>& x, const View<To, 1, LayoutRight, Space>& y) {
  blas_detail::check_same_size(x, y);
  using Narrow = std::conditional_t<(sizeof(To) < sizeof(From)), To, From>;
  constexpr int K = blas_detail::kGroup<Narrow, Space>;
  const From* xp = x.data();
  To* yp = y.data();
  blas_detail::for_each_group<Narrow, Space>("blas_convert_copy", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
    From v[K];
    g.load(xp, v);
    To w[K];
    for (int j = 0; j < K; ++j) w[j] = static_cast<To>(v[j]);
    g.store(yp, w);
  });
}

namespace blas_detail {
// y += x (+ c p) and x = 0, in y's precision; p is read only where there is a term.
template <bool kTerm, class To, class From, class Space, class C>
void add_and_zero_pass(const View<From, 1, LayoutRight, Space>& x, C c, const View<From, 1, LayoutRight, Space>& p, const View<To, 1, LayoutRight, Space>& y) {
  check_same_size(x, p);
  check_same_size(x, y);
  using Narrow = std::conditional_t<(sizeof(To) < sizeof(From)), To, From>;
  constexpr int K = kGroup<Narrow, Space>;
  From* xp = x.data();
  const From* pp = p.data();
  To* yp = y.data();
  for_each_group<Narrow, Space>(kTerm ? "blas_add_axpy_and_zero" : "blas_add_and_zero", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const Strided<K>& g) {
    From v[K], pv[K]{}, zero[K];
    To w[K];
    g.load(xp, v);
    if (kTerm) g.load(pp, pv);  // (not constexpr: an extended lambda cannot first capture in one)
    g.load(yp, w);
    const To cv = kTerm ? static_cast<To>(value(c)) : To(0);
    for (int j = 0; j < K; ++j) {
      w[j] += static_cast<To>(v[j]);
      if (kTerm) w[j] += cv * static_cast<To>(pv[j]);
      zero[j] = From(0);
    }
    g.store(yp, w);
    g.store(xp, zero);
  });
}
}  // namespace blas_detail

// y += x and x = 0, converting x to y's precision (buffers of the same layout, element by element):
// a reliable update's x += x_s in one pass instead of a conversion, an axpy and a fill.
template <class To, class From, class Space>
void add_and_zero(const View<From, 1, LayoutRight, Space>& x, const View<To, 1, LayoutRight, Space>& y) {
  blas_detail::add_and_zero_pass<false>(x, From(0), x, y);
}

// y += x + c p and x = 0, in y's precision: the same with an iteration's share of x that has not
// gone into x yet (CG's alpha p at an update), one pass instead of two.
template <class To, class From, class Space, CoefficientOf<From> C>
void add_and_zero(const View<From, 1, LayoutRight, Space>& x, C c, const View<From, 1, LayoutRight, Space>& p, const View<To, 1, LayoutRight, Space>& y) {
  if constexpr (blas_detail::reads_ratio_on_host<Space, C>) blas_detail::add_and_zero_pass<true>(x, blas_detail::value(c), p, y);
  else blas_detail::add_and_zero_pass<true>(x, c, p, y);
}

// z = x - y in z's precision, returning ||x - y||^2 in double from the same pass (buffers of the
// same layout): a reliable update's true residual b - M x, taken to the sloppy precision where its
// norm is taken, instead of a subtraction and a conversion.
template <class To, class From, class Space>
double convert_difference_norm2(const View<From, 1, LayoutRight, Space>& x, const View<From, 1, LayoutRight, Space>& y,
                                const View<To, 1, LayoutRight, Space>& z) {
  blas_detail::check_same_size(x, y);
  blas_detail::check_same_size(x, z);
  using Narrow = std::conditional_t<(sizeof(To) < sizeof(From)), To, From>;
  constexpr int K = blas_detail::kGroup<Narrow, Space>;
  const From* xp = x.data();
  const From* yp = y.data();
  To* zp = z.data();
  double sum = 0;
  blas_detail::reduce_groups<Narrow, Space>("blas_convert_difference_norm2", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g, double& acc) {
    From xv[K], yv[K];
    To zv[K];
    g.load(xp, xv);
    g.load(yp, yv);
    for (int j = 0; j < K; ++j) {
      const From d = xv[j] - yv[j];
      acc += static_cast<double>(d) * static_cast<double>(d);
      zv[j] = static_cast<To>(d);
    }
    g.store(zp, zv);
  }, sum);
  return sum;
}

// x = value everywhere
template <class Real, class Space>
void fill(const View<Real, 1, LayoutRight, Space>& x, Real value) {
  constexpr int K = blas_detail::kGroup<Real, Space>;
  Real* xp = x.data();
  blas_detail::for_each_group<Real, Space>("blas_fill", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
    Real v[K];
    for (Real& e : v) e = value;
    g.store(xp, v);
  });
}

// y = a x + b y
template <class Real, class Space, CoefficientOf<Real> A, CoefficientOf<Real> B>
void axpby(A a, const View<Real, 1, LayoutRight, Space>& x, B b, const View<Real, 1, LayoutRight, Space>& y) {
  if constexpr (blas_detail::reads_ratio_on_host<Space, A, B>) {
    return axpby(blas_detail::value(a), x, blas_detail::value(b), y);
  } else {
    blas_detail::check_same_size(x, y);
    constexpr int K = blas_detail::kGroup<Real, Space>;
    const Real* xp = x.data();
    Real* yp = y.data();
    blas_detail::for_each_group<Real, Space>("blas_axpby", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
      const Real av = blas_detail::value(a), bv = blas_detail::value(b);
      Real xv[K], yv[K];
      g.load(xp, xv);
      g.load(yp, yv);
      for (int j = 0; j < K; ++j) yv[j] = av * xv[j] + bv * yv[j];
      g.store(yp, yv);
    });
  }
}

// y += a x
template <class Real, class Space, CoefficientOf<Real> A>
void axpy(A a, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  axpby(a, x, Real(1), y);
}

// y = x + a y
template <class Real, class Space, CoefficientOf<Real> A>
void xpay(const View<Real, 1, LayoutRight, Space>& x, A a, const View<Real, 1, LayoutRight, Space>& y) {
  axpby(Real(1), x, a, y);
}

namespace blas_detail {
// y = a x + b y with ||y||^2 of the new y: its reduction, into `sum` (a double, or ReduceInto).
template <class Real, class Space, class A, class B, class Sum>
void axpby_norm2_pass(A a, const View<Real, 1, LayoutRight, Space>& x, B b, const View<Real, 1, LayoutRight, Space>& y, Sum& sum) {
  check_same_size(x, y);
  constexpr int K = kGroup<Real, Space>;
  const Real* xp = x.data();
  Real* yp = y.data();
  reduce_groups<Real, Space>("blas_axpby_norm2", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const Strided<K>& g, double& acc) {
    const Real av = value(a), bv = value(b);
    Real xv[K], yv[K];
    g.load(xp, xv);
    g.load(yp, yv);
    for (int j = 0; j < K; ++j) {
      yv[j] = av * xv[j] + bv * yv[j];
      acc += static_cast<double>(yv[j]) * static_cast<double>(yv[j]);
    }
    g.store(yp, yv);
  }, sum);
}
}  // namespace blas_detail

// y = a x + b y, returning ||y||^2 of the new y from the same pass (the last pass of M_ee_hat in CGNR).
template <class Real, class Space, CoefficientOf<Real> A, CoefficientOf<Real> B>
double axpby_norm2(A a, const View<Real, 1, LayoutRight, Space>& x, B b, const View<Real, 1, LayoutRight, Space>& y) {
  if constexpr (blas_detail::reads_ratio_on_host<Space, A, B>) {
    return axpby_norm2(blas_detail::value(a), x, blas_detail::value(b), y);
  } else {
    double sum = 0;
    blas_detail::axpby_norm2_pass(a, x, b, y, sum);
    return sum;
  }
}

// The same, leaving ||y||^2 at `norm` without waiting for it (on a GPU; solvers/device_sums.hpp).
template <class Real, class Space, CoefficientOf<Real> A, CoefficientOf<Real> B>
void axpby_norm2(A a, const View<Real, 1, LayoutRight, Space>& x, B b, const View<Real, 1, LayoutRight, Space>& y, ReduceInto<double> norm) {
  if constexpr (blas_detail::reads_ratio_on_host<Space, A, B>) {
    axpby_norm2(blas_detail::value(a), x, blas_detail::value(b), y, norm);
  } else {
    blas_detail::axpby_norm2_pass(a, x, b, y, norm);
  }
}

// x += a p, then p = z + b p: CG's solution update deferred to the next direction's pass (QUDA's
// axpyZpbx), one pass over three buffers instead of an axpy and an xpay (six).
template <class Real, class Space, CoefficientOf<Real> A, CoefficientOf<Real> B>
void axpy_xpay(A a, const View<Real, 1, LayoutRight, Space>& p, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& z,
               B b) {
  if constexpr (blas_detail::reads_ratio_on_host<Space, A, B>) {
    return axpy_xpay(blas_detail::value(a), p, x, z, blas_detail::value(b));
  } else {
    blas_detail::check_same_size(p, x);
    blas_detail::check_same_size(p, z);
    constexpr int K = blas_detail::kGroup<Real, Space>;
    Real *pp = p.data(), *xp = x.data();
    const Real* zp = z.data();
    blas_detail::for_each_group<Real, Space>("blas_axpy_xpay", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
      const Real av = blas_detail::value(a), bv = blas_detail::value(b);
      Real pv[K], xv[K], zv[K];
      g.load(pp, pv);
      g.load(xp, xv);
      g.load(zp, zv);
      for (int j = 0; j < K; ++j) {
        xv[j] += av * pv[j];
        pv[j] = zv[j] + bv * pv[j];
      }
      g.store(xp, xv);
      g.store(pp, pv);
    });
  }
}

// Re <x, y> = sum x_i y_i over every real
template <class Real, class Space>
double re_dot(const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_same_size(x, y);
  constexpr int K = blas_detail::kGroup<Real, Space>;
  const Real* xp = x.data();
  const Real* yp = y.data();
  double sum = 0;
  blas_detail::reduce_groups<Real, Space>("blas_re_dot", static_cast<index_t>(x.size()), DSLASH_LAMBDA(const blas_detail::Strided<K>& g, double& acc) {
    Real xv[K], yv[K];
    g.load(xp, xv);
    g.load(yp, yv);
    for (int j = 0; j < K; ++j) acc += static_cast<double>(xv[j]) * static_cast<double>(yv[j]);
  }, sum);
  return sum;
}

// ||x||^2
template <class Real, class Space>
double norm2(const View<Real, 1, LayoutRight, Space>& x) {
  return re_dot(x, x);
}

namespace blas_detail {
// How a thread finds the reals of its complex numbers, chosen once per call (every index the same):
//   General   PackedComplex::real_index for each element (a branch, in general a division)
//   Aligned   the group's elements a whole number of chunks apart (m a multiple of imag_offset()):
//             element j is real_index(i) + 2 j m, one division an index (the GPU's naive left layout)
//   Adjacent  (re, im) side by side (imag_offset() == 1: vnode, mrhs on the GPU): complex k is reals
//             2k and 2k + 1
// The index arithmetic holds most of a GPU reduction's registers, and so its occupancy: each layout
// gets the cheapest form that serves it.
enum class ComplexIndex { General, Aligned, Adjacent };

// f(std::integral_constant<ComplexIndex, I>{}) with I the way that serves layout c for groups of K.
template <int K, class F>
decltype(auto) with_complex_index(const PackedComplex& c, const F& f) {
  const index_t m = (c.count() + K - 1) / K, chunk = c.imag_offset();
  if (chunk == 1) return f(std::integral_constant<ComplexIndex, ComplexIndex::Adjacent>{});
  if (m % chunk == 0) return f(std::integral_constant<ComplexIndex, ComplexIndex::Aligned>{});
  return f(std::integral_constant<ComplexIndex, ComplexIndex::General>{});
}

// The complex numbers of one index (the elements of a Strided group), split into real and imaginary
// parts; those past the end read as zero and are not written.
template <int K, class Real>
struct ComplexGroup {
  Real re[K], im[K];
  template <ComplexIndex Index = ComplexIndex::General>
  DSLASH_INLINE_FUNCTION void load(const PackedComplex& c, const Strided<K>& g, const Real* p) {
    const index_t r0 = Index == ComplexIndex::Aligned ? c.real_index(g.i) : 0;
    for (int j = 0; j < K; ++j) {
      const index_t r = g.has(j) ? real_of<Index>(c, g, r0, j) : 0;
      re[j] = g.has(j) ? p[r] : Real(0);
      im[j] = g.has(j) ? p[r + imag_of<Index>(c)] : Real(0);
    }
  }
  template <ComplexIndex Index = ComplexIndex::General>
  DSLASH_INLINE_FUNCTION void store(const PackedComplex& c, const Strided<K>& g, Real* p) const {
    const index_t r0 = Index == ComplexIndex::Aligned ? c.real_index(g.i) : 0;
    for (int j = 0; j < K; ++j)
      if (g.has(j)) {
        const index_t r = real_of<Index>(c, g, r0, j);
        p[r] = re[j];
        p[r + imag_of<Index>(c)] = im[j];
      }
  }

 private:
  template <ComplexIndex Index>
  DSLASH_INLINE_FUNCTION static index_t real_of(const PackedComplex& c, const Strided<K>& g, index_t r0, int j) {
    if constexpr (Index == ComplexIndex::Adjacent) return 2 * g.at(j);
    if constexpr (Index == ComplexIndex::Aligned) return r0 + 2 * j * g.m;
    return c.real_index(g.at(j));
  }
  template <ComplexIndex Index>
  DSLASH_INLINE_FUNCTION static index_t imag_of(const PackedComplex& c) {
    return Index == ComplexIndex::Adjacent ? 1 : c.imag_offset();
  }
};

// y = a x + b y for one complex number, a = (ar, ai) and b = (br, bi): the one place of the formula.
template <class Real>
DSLASH_INLINE_FUNCTION void caxpby_value(Real ar, Real ai, Real br, Real bi, Real xr, Real xi, Real& yr, Real& yi) {
  const Real y_re = yr, y_im = yi;
  yr = ar * xr - ai * xi + br * y_re - bi * y_im;
  yi = ar * xi + ai * xr + br * y_im + bi * y_re;
}

// BiCGStab's last pass at one complex number (bicgstab_update): x += a p + b s, r = s - b t, and the
// next direction q = r + c (p - b v), with s coming in r and p in q.
template <class Real>
DSLASH_INLINE_FUNCTION void bicgstab_update_value(Real ar, Real ai, Real br, Real bi, Real cr, Real ci, Real tr, Real ti, Real vr, Real vi, Real& xr,
                                                  Real& xi, Real& rr, Real& ri, Real& qr, Real& qi) {
  caxpby_value(ar, ai, Real(1), Real(0), qr, qi, xr, xi);    // x += a p
  caxpby_value(br, bi, Real(1), Real(0), rr, ri, xr, xi);    //    + b s
  caxpby_value(-br, -bi, Real(1), Real(0), tr, ti, rr, ri);  // r = s - b t
  caxpby_value(-br, -bi, Real(1), Real(0), vr, vi, qr, qi);  // p - b v
  caxpby_value(Real(1), Real(0), cr, ci, rr, ri, qr, qi);    // q = r + c (p - b v)
}

// y = a x + b y at element j of the groups.
template <int K, class Real>
DSLASH_INLINE_FUNCTION void caxpby_at(int j, Real ar, Real ai, Real br, Real bi, const ComplexGroup<K, Real>& x, ComplexGroup<K, Real>& y) {
  caxpby_value(ar, ai, br, bi, x.re[j], x.im[j], y.re[j], y.im[j]);
}

// <w, v> = conj(w) v of one complex number, in double, added to the sums: the one place of the
// formula for every pass that returns an inner product.
template <class Real>
DSLASH_INLINE_FUNCTION void add_dot(Real v_re, Real v_im, Real w_re, Real w_im, double& dot_re, double& dot_im) {
  const double vr = v_re, vi = v_im, wr = w_re, wi = w_im;
  dot_re += wr * vr + wi * vi;
  dot_im += wr * vi - wi * vr;
}

// ||v||^2 and <w, v> of one complex number, in double, added to the sums.
template <class Real>
DSLASH_INLINE_FUNCTION void add_norm2_dot(Real v_re, Real v_im, Real w_re, Real w_im, double& norm, double& dot_re, double& dot_im) {
  const double vr = v_re, vi = v_im;
  norm += vr * vr + vi * vi;
  add_dot(v_re, v_im, w_re, w_im, dot_re, dot_im);
}

// On a CPU the complex passes walk runs of complex numbers whose real parts are adjacent in the
// buffer, and so are their imaginary parts: up to 64 of one chunk of the layout (PackedComplex),
// where a chunk holds a multiple of 8 (vnode's and mrhs's W lanes), with host-only lambdas. The
// compiler vectorises a run (its sums through omp simd reductions: a fixed order for a build); one
// complex number an index, through real_index, is several times slower than a real pass
// (docs/history/HISTORY.md, "The BLAS reductions, and the functor on the loop's stack"). Other
// layouts (naive's W = 1, narrow SIMD) keep that path.
struct ComplexRuns {
  static constexpr index_t kRun = 64;
  index_t chunk = 0, per_chunk = 1, count = 0;
  explicit ComplexRuns(const PackedComplex& c) {
    if (c.strides.pairs || c.imag_offset() % 8 != 0) return;
    chunk = c.imag_offset();
    per_chunk = (chunk + kRun - 1) / kRun;
    count = c.count() / chunk * per_chunk;
  }
  bool usable() const { return count > 0; }
  // Run r: its real parts at [re, re + length), its imaginary parts chunk further; length a multiple of 8.
  void bounds(index_t r, index_t& re, index_t& length) const {
    const index_t q = r / per_chunk, k = r % per_chunk;
    re = 2 * q * chunk + k * kRun;
    length = chunk - k * kRun < kRun ? chunk - k * kRun : kRun;
  }
};

// <x, y> over Strided groups (every GPU launch; the CPU's layouts that have no runs).
template <ComplexIndex Index, class Real, class Space>
std::array<double, 2> dot_groups(const PackedComplex& c, const Real* xp, const Real* yp) {
  constexpr int K = kGroup<Real, Space>;
  std::array<double, 2> sum{};
  reduce_groups<Real, Space>("blas_dot", c.count(), DSLASH_LAMBDA(const Strided<K>& g, std::array<double, 2>& acc) {
    ComplexGroup<K, Real> xv, yv;
    xv.template load<Index>(c, g, xp);
    yv.template load<Index>(c, g, yp);
    for (int j = 0; j < K; ++j) {
      const double xr = xv.re[j], xi = xv.im[j], yr = yv.re[j], yi = yv.im[j];
      acc[0] += xr * yr + xi * yi;
      acc[1] += xr * yi - xi * yr;
    }
  }, sum);
  return sum;
}

// <w, y> and <w2, y> over Strided groups, as dot_groups.
template <ComplexIndex Index, class Real, class Space>
std::array<double, 4> dot2_groups(const PackedComplex& c, const Real* wp, const Real* w2p, const Real* yp) {
  constexpr int K = kGroup<Real, Space>;
  std::array<double, 4> sum{};
  reduce_groups<Real, Space>("blas_dot2", c.count(), DSLASH_LAMBDA(const Strided<K>& g, std::array<double, 4>& acc) {
    ComplexGroup<K, Real> wv, w2v, yv;
    wv.template load<Index>(c, g, wp);
    w2v.template load<Index>(c, g, w2p);
    yv.template load<Index>(c, g, yp);
    for (int j = 0; j < K; ++j) {
      add_dot(yv.re[j], yv.im[j], wv.re[j], wv.im[j], acc[0], acc[1]);
      add_dot(yv.re[j], yv.im[j], w2v.re[j], w2v.im[j], acc[2], acc[3]);
    }
  }, sum);
  return sum;
}

// y = a x + b y with ||y||^2, <w, y> and <w2, y> over Strided groups, as dot_groups.
template <ComplexIndex Index, class Real, class Space>
std::array<double, 5> caxpby_norm2_dot_groups(const PackedComplex& c, Real ar, Real ai, const Real* xp, Real br, Real bi, Real* yp, const Real* wp,
                                              const Real* w2p) {
  constexpr int K = kGroup<Real, Space>;
  std::array<double, 5> sum{};
  reduce_groups<Real, Space>("blas_caxpby_norm2_dot", c.count(), DSLASH_LAMBDA(const Strided<K>& g, std::array<double, 5>& acc) {
    ComplexGroup<K, Real> xv, yv, wv, w2v;
    xv.template load<Index>(c, g, xp);
    yv.template load<Index>(c, g, yp);
    wv.template load<Index>(c, g, wp);
    w2v.template load<Index>(c, g, w2p);
    for (int j = 0; j < K; ++j) {
      caxpby_at(j, ar, ai, br, bi, xv, yv);
      add_norm2_dot(yv.re[j], yv.im[j], wv.re[j], wv.im[j], acc[0], acc[1], acc[2]);
      add_dot(yv.re[j], yv.im[j], w2v.re[j], w2v.im[j], acc[3], acc[4]);
    }
    yv.template store<Index>(c, g, yp);
  }, sum);
  return sum;
}

// BiCGStab's last pass (bicgstab_update) over Strided groups, as dot_groups.
template <ComplexIndex Index, class Real, class Space>
double bicgstab_update_groups(const PackedComplex& c, Real ar, Real ai, Real br, Real bi, Real cr, Real ci, const Real* pp, const Real* vp, const Real* tp,
                              Real* rp, Real* xp, Real* qp) {
  constexpr int K = kGroup<Real, Space>;
  double sum = 0;
  reduce_groups<Real, Space>("blas_bicgstab_update", c.count(), DSLASH_LAMBDA(const Strided<K>& g, double& acc) {
    ComplexGroup<K, Real> pv, vv, tv, rv, xv;
    pv.template load<Index>(c, g, pp);
    vv.template load<Index>(c, g, vp);
    tv.template load<Index>(c, g, tp);
    rv.template load<Index>(c, g, rp);
    xv.template load<Index>(c, g, xp);
    for (int j = 0; j < K; ++j) {
      bicgstab_update_value(ar, ai, br, bi, cr, ci, tv.re[j], tv.im[j], vv.re[j], vv.im[j], xv.re[j], xv.im[j], rv.re[j], rv.im[j], pv.re[j], pv.im[j]);
      const double r_re = rv.re[j], r_im = rv.im[j];
      acc += r_re * r_re + r_im * r_im;
    }
    xv.template store<Index>(c, g, xp);
    rv.template store<Index>(c, g, rp);
    pv.template store<Index>(c, g, qp);
  }, sum);
  return sum;
}

}  // namespace blas_detail

// <x, y> = sum conj(x) y over the complex numbers of a buffer of layout c.
template <class Real, class Space>
std::complex<double> dot(const PackedComplex& c, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_complex(c, x, y);
  const Real* xp = x.data();
  const Real* yp = y.data();
  std::array<double, 2> sum{};
  if constexpr (std::is_same_v<Space, HostSpace>) {
    if (const blas_detail::ComplexRuns runs(c); runs.usable()) {
      parallel_reduce("blas_dot", RangePolicy<typename Space::execution_space>(runs.count), [=](index_t r, std::array<double, 2>& acc) {
        index_t re, n;
        runs.bounds(r, re, n);
        const Real *xr = xp + re, *xi = xr + runs.chunk, *yr = yp + re, *yi = yr + runs.chunk;
        double s_re = 0, s_im = 0;
#pragma omp simd reduction(+ : s_re, s_im)
        for (index_t j = 0; j < n; ++j) {
          const double a_re = xr[j], a_im = xi[j], b_re = yr[j], b_im = yi[j];
          s_re += a_re * b_re + a_im * b_im;
          s_im += a_re * b_im - a_im * b_re;
        }
        acc[0] += s_re;
        acc[1] += s_im;
      }, sum);
      return {sum[0], sum[1]};
    }
  }
  sum = blas_detail::with_complex_index<blas_detail::kGroup<Real, Space>>(
      c, [&](auto index) { return blas_detail::dot_groups<decltype(index)::value, Real, Space>(c, xp, yp); });
  return {sum[0], sum[1]};
}

// y = a x + b y with complex a and b, over the complex numbers of a buffer of layout c.
template <class Real, class Space>
void caxpby(const PackedComplex& c, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
            const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_complex(c, x, y);
  constexpr int K = blas_detail::kGroup<Real, Space>;
  const Real* xp = x.data();
  Real* yp = y.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag());
  if constexpr (std::is_same_v<Space, HostSpace>) {
    if (const blas_detail::ComplexRuns runs(c); runs.usable()) {
      parallel_for("blas_caxpby", RangePolicy<typename Space::execution_space>(runs.count), [=](index_t r) {
        index_t re, n;
        runs.bounds(r, re, n);
        const Real ar_ = ar, ai_ = ai, br_ = br, bi_ = bi;  // in registers: the stores below cannot change them
        const Real *__restrict__ xr = xp + re, *__restrict__ xi = xr + runs.chunk;
        Real *__restrict__ yr = yp + re, *__restrict__ yi = yr + runs.chunk;
        for (index_t j = 0; j < n; ++j) blas_detail::caxpby_value(ar_, ai_, br_, bi_, xr[j], xi[j], yr[j], yi[j]);
      });
      return;
    }
  }
  blas_detail::for_each_group<Real, Space>("blas_caxpby", c.count(), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
    blas_detail::ComplexGroup<K, Real> xv, yv;
    xv.load(c, g, xp);
    yv.load(c, g, yp);
    for (int j = 0; j < K; ++j) blas_detail::caxpby_at(j, ar, ai, br, bi, xv, yv);
    yv.store(c, g, yp);
  });
}

// z = a x + b y + c z with complex a, b, c: BiCGStab's p = r + beta (p - omega v), one pass over
// three buffers instead of two caxpbys (six).
template <class Real, class Space>
void caxpbypcz(const PackedComplex& layout, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
               const View<Real, 1, LayoutRight, Space>& y, std::complex<double> c, const View<Real, 1, LayoutRight, Space>& z) {
  blas_detail::check_complex(layout, x, y);
  blas_detail::check_same_size(x, z);
  constexpr int K = blas_detail::kGroup<Real, Space>;
  const Real *xp = x.data(), *yp = y.data();
  Real* zp = z.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag()),
             cr = static_cast<Real>(c.real()), ci = static_cast<Real>(c.imag());
  if constexpr (std::is_same_v<Space, HostSpace>) {
    if (const blas_detail::ComplexRuns runs(layout); runs.usable()) {
      parallel_for("blas_caxpbypcz", RangePolicy<typename Space::execution_space>(runs.count), [=](index_t r) {
        index_t re, n;
        runs.bounds(r, re, n);
        const Real ar_ = ar, ai_ = ai, br_ = br, bi_ = bi, cr_ = cr, ci_ = ci;
        const Real *__restrict__ xr = xp + re, *__restrict__ xi = xr + runs.chunk, *__restrict__ yr = yp + re, *__restrict__ yi = yr + runs.chunk;
        Real *__restrict__ zr = zp + re, *__restrict__ zi = zr + runs.chunk;
        for (index_t j = 0; j < n; ++j) {
          const Real z_re = zr[j], z_im = zi[j];
          zr[j] = ar_ * xr[j] - ai_ * xi[j] + br_ * yr[j] - bi_ * yi[j] + cr_ * z_re - ci_ * z_im;
          zi[j] = ar_ * xi[j] + ai_ * xr[j] + br_ * yi[j] + bi_ * yr[j] + cr_ * z_im + ci_ * z_re;
        }
      });
      return;
    }
  }
  blas_detail::for_each_group<Real, Space>("blas_caxpbypcz", layout.count(), DSLASH_LAMBDA(const blas_detail::Strided<K>& g) {
    blas_detail::ComplexGroup<K, Real> xv, yv, zv;
    xv.load(layout, g, xp);
    yv.load(layout, g, yp);
    zv.load(layout, g, zp);
    for (int j = 0; j < K; ++j) {
      const Real zr = zv.re[j], zi = zv.im[j];
      zv.re[j] = ar * xv.re[j] - ai * xv.im[j] + br * yv.re[j] - bi * yv.im[j] + cr * zr - ci * zi;
      zv.im[j] = ar * xv.im[j] + ai * xv.re[j] + br * yv.im[j] + bi * yv.re[j] + cr * zi + ci * zr;
    }
    zv.store(layout, g, zp);
  });
}

// <w, y> and <w2, y> in one pass: BiCGStab's <s, t> and <r0, t> where the kernel's epilogue takes
// the norm but not the inner products (the GPU's naive kernel). Over Strided groups on every space:
// the CPU's kernels take them in their epilogue.
template <class Real, class Space>
std::pair<std::complex<double>, std::complex<double>> dot2(const PackedComplex& c, const View<Real, 1, LayoutRight, Space>& w,
                                                           const View<Real, 1, LayoutRight, Space>& w2, const View<Real, 1, LayoutRight, Space>& y) {
  blas_detail::check_complex(c, w, y);
  blas_detail::check_same_size(w, w2);
  const Real *wp = w.data(), *w2p = w2.data(), *yp = y.data();
  const std::array<double, 4> sum = blas_detail::with_complex_index<blas_detail::kGroup<Real, Space>>(
      c, [&](auto index) { return blas_detail::dot2_groups<decltype(index)::value, Real, Space>(c, wp, w2p, yp); });
  return {{sum[0], sum[1]}, {sum[2], sum[3]}};
}

// y = a x + b y with complex a and b, returning ||y||^2, <w, y> and <w2, y> of the new y from the
// same pass: BiCGStab's last pass of M where the kernel has no epilogue for it (v = M p with
// <r0, v>, w2 = w; t = M s with ||t||^2, <s, t> and <r0, t>).
template <class Real, class Space>
NormDot caxpby_norm2_dot(const PackedComplex& c, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& x, std::complex<double> b,
                         const View<Real, 1, LayoutRight, Space>& y, const View<Real, 1, LayoutRight, Space>& w,
                         const View<Real, 1, LayoutRight, Space>& w2) {
  blas_detail::check_complex(c, x, y);
  blas_detail::check_same_size(x, w);
  blas_detail::check_same_size(x, w2);
  const Real *xp = x.data(), *wp = w.data(), *w2p = w2.data();
  Real* yp = y.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag());
  std::array<double, 5> sum{};
  if constexpr (std::is_same_v<Space, HostSpace>) {
    if (const blas_detail::ComplexRuns runs(c); runs.usable()) {
      parallel_reduce("blas_caxpby_norm2_dot", RangePolicy<typename Space::execution_space>(runs.count), [=](index_t r, std::array<double, 5>& acc) {
        index_t re, n;
        runs.bounds(r, re, n);
        const Real ar_ = ar, ai_ = ai, br_ = br, bi_ = bi;
        const Real *__restrict__ xr = xp + re, *__restrict__ xi = xr + runs.chunk, *__restrict__ wr = wp + re, *__restrict__ wi = wr + runs.chunk;
        const Real *__restrict__ w2r = w2p + re, *__restrict__ w2i = w2r + runs.chunk;
        Real *__restrict__ yr = yp + re, *__restrict__ yi = yr + runs.chunk;
        double s_norm = 0, s_re = 0, s_im = 0, s2_re = 0, s2_im = 0;
#pragma omp simd reduction(+ : s_norm, s_re, s_im, s2_re, s2_im)
        for (index_t j = 0; j < n; ++j) {
          Real v_re = yr[j], v_im = yi[j];
          blas_detail::caxpby_value(ar_, ai_, br_, bi_, xr[j], xi[j], v_re, v_im);
          yr[j] = v_re;
          yi[j] = v_im;
          blas_detail::add_norm2_dot(v_re, v_im, wr[j], wi[j], s_norm, s_re, s_im);
          blas_detail::add_dot(v_re, v_im, w2r[j], w2i[j], s2_re, s2_im);
        }
        acc[0] += s_norm;
        acc[1] += s_re;
        acc[2] += s_im;
        acc[3] += s2_re;
        acc[4] += s2_im;
      }, sum);
      return NormDot::from_sums(sum);
    }
  }
  sum = blas_detail::with_complex_index<blas_detail::kGroup<Real, Space>>(c, [&](auto index) {
    return blas_detail::caxpby_norm2_dot_groups<decltype(index)::value, Real, Space>(c, ar, ai, xp, br, bi, yp, wp, w2p);
  });
  return NormDot::from_sums(sum);
}

// BiCGStab's whole iteration after t = M s in one pass over eight buffers: x += a p + b s, r = s - b t,
// and the next direction q = r + c (p - b v), returning ||r||^2 of the new r. With r holding s,
// a = alpha, b = omega and c = beta, where caxpbypcz at the top of the next iteration would read
// r, v and p again and write p. q may not be p: after a reliable update the solver makes the
// direction again from p, v and the recomputed residual (solvers/bicgstab_impl.hpp).
template <class Real, class Space>
double bicgstab_update(const PackedComplex& c, std::complex<double> a, const View<Real, 1, LayoutRight, Space>& p, std::complex<double> b,
                       const View<Real, 1, LayoutRight, Space>& t, const View<Real, 1, LayoutRight, Space>& v, std::complex<double> beta,
                       const View<Real, 1, LayoutRight, Space>& r, const View<Real, 1, LayoutRight, Space>& x, const View<Real, 1, LayoutRight, Space>& q) {
  blas_detail::check_complex(c, p, t);
  for (const auto* other : {&v, &r, &x, &q}) blas_detail::check_same_size(p, *other);
  if (q.data() == p.data()) throw std::invalid_argument("bicgstab_update: the next direction needs a buffer of its own");
  const Real *pp = p.data(), *vp = v.data(), *tp = t.data();
  Real *rp = r.data(), *xp = x.data(), *qp = q.data();
  const Real ar = static_cast<Real>(a.real()), ai = static_cast<Real>(a.imag()), br = static_cast<Real>(b.real()), bi = static_cast<Real>(b.imag()),
             cr = static_cast<Real>(beta.real()), ci = static_cast<Real>(beta.imag());
  double sum = 0;
  if constexpr (std::is_same_v<Space, HostSpace>) {
    if (const blas_detail::ComplexRuns runs(c); runs.usable()) {
      parallel_reduce("blas_bicgstab_update", RangePolicy<typename Space::execution_space>(runs.count), [=](index_t k, double& acc) {
        index_t re, n;
        runs.bounds(k, re, n);
        const Real ar_ = ar, ai_ = ai, br_ = br, bi_ = bi, cr_ = cr, ci_ = ci;
        const Real *__restrict__ p_re = pp + re, *__restrict__ p_im = p_re + runs.chunk, *__restrict__ t_re = tp + re, *__restrict__ t_im = t_re + runs.chunk;
        const Real *__restrict__ v_re = vp + re, *__restrict__ v_im = v_re + runs.chunk;
        Real *__restrict__ r_re = rp + re, *__restrict__ r_im = r_re + runs.chunk, *__restrict__ x_re = xp + re, *__restrict__ x_im = x_re + runs.chunk;
        Real *__restrict__ q_re = qp + re, *__restrict__ q_im = q_re + runs.chunk;
        double s_norm = 0;
#pragma omp simd reduction(+ : s_norm)
        for (index_t j = 0; j < n; ++j) {
          Real xr = x_re[j], xi = x_im[j], rr = r_re[j], ri = r_im[j], qr = p_re[j], qi = p_im[j];
          blas_detail::bicgstab_update_value(ar_, ai_, br_, bi_, cr_, ci_, t_re[j], t_im[j], v_re[j], v_im[j], xr, xi, rr, ri, qr, qi);
          x_re[j] = xr;
          x_im[j] = xi;
          r_re[j] = rr;
          r_im[j] = ri;
          q_re[j] = qr;
          q_im[j] = qi;
          s_norm += static_cast<double>(rr) * rr + static_cast<double>(ri) * ri;
        }
        acc += s_norm;
      }, sum);
      return sum;
    }
  }
  return blas_detail::with_complex_index<blas_detail::kGroup<Real, Space>>(c, [&](auto index) {
    return blas_detail::bicgstab_update_groups<decltype(index)::value, Real, Space>(c, ar, ai, br, bi, cr, ci, pp, vp, tp, rp, xp, qp);
  });
}

}  // namespace dslash
