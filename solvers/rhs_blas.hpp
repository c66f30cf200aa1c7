#pragma once
// BLAS-1 per right-hand side on packed spinor buffers, for the block solvers (solvers/block_cg.hpp):
// every right-hand side of a buffer has its own coefficients and its own sums, in one pass over the
// whole buffer. A right-hand side is a slot of the layout (kernels/kernel_layout.hpp): lane l of
// block b, slot b W + l, of an unfolded layout (mrhs: rhs_slots() of them, those past nrhs the zero
// padding), or the one right-hand side of a folded (vnode) or one-lane (naive) buffer.
//
// The coefficients are the host's (RhsPasses::upload): a block solve decides per right-hand side on
// the host anyway (its stop, its reliable updates). A pass with sums leaves one partial per task and
// right-hand side, and the host adds a task's partials: one launch gives the N sums, in an order
// fixed by the layout (deterministic).
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core.hpp"
#include "solvers/blas.hpp"

namespace dslash {

struct RhsLayout {
  PackedComplex c;
  bool folded = false;
  int slots() const { return folded ? 1 : static_cast<int>(c.blocks * c.lanes); }
};

template <class Real, class Space>
RhsLayout rhs_layout(const DslashKernel<Real, Space>& kernel) {
  return {packed_complex(kernel), kernel.layout().folded};
}

// scale x values[r] for right-hand side r (scale alone where values is null): read by a pass as it runs.
struct RhsCoefficient {
  double scale = 1;
  const double* values = nullptr;
  DSLASH_INLINE_FUNCTION double operator()(int r) const { return values != nullptr ? scale * values[r] : scale; }
};

namespace rhs_blas_detail {

inline constexpr int kMaxLanes = 16;  // KernelLayout's widest

// f(real index, right-hand side) for every real of a buffer of layout l, in tasks of (a chunk of
// sites, a block), each leaving its lanes' sums of f in partials; with sums, their total per right-
// hand side over this process's sites. (A free function: nvcc's extended lambdas may not sit in a
// private member.)
template <class Space, class F, class Host>
std::vector<double> pass(const char* label, const RhsLayout& l, index_t chunks, const View<double, 1, LayoutRight, Space>& partials_view,
                         const Host& partials_host, bool sums, const F& f) {
  const index_t sites = l.c.sites, blocks = l.c.blocks;
  const int lanes = static_cast<int>(l.c.lanes);
  const bool folded = l.folded;
  const KernelLayout::Strides st = l.c.strides;
  double* partials = partials_view.data();
  parallel_for(label, RangePolicy<typename Space::execution_space>(chunks * blocks), DSLASH_LAMBDA(index_t task) {
    const index_t chunk = task / blocks;
    const int b = static_cast<int>(task % blocks);
    double acc[kMaxLanes] = {};
    for (index_t o = chunk * sites / chunks; o < (chunk + 1) * sites / chunks; ++o)
      for (int c = 0; c < 24; ++c)
        for (int lane = 0; lane < lanes; ++lane) acc[lane] += f(st.index(o, b, c, lane, lanes), folded ? 0 : b * lanes + lane);
    for (int lane = 0; lane < lanes; ++lane) partials[task * lanes + lane] = acc[lane];
  });
  if (!sums) return {};
  if constexpr (!Space::host_accessible) deep_copy(partials_host, partials_view);
  else Space::execution_space::fence();
  std::vector<double> total(static_cast<std::size_t>(l.slots()), 0.0);
  const double* p = partials_host.data();
  for (index_t chunk = 0; chunk < chunks; ++chunk)
    for (index_t b = 0; b < blocks; ++b)
      for (int lane = 0; lane < lanes; ++lane) total[static_cast<std::size_t>(folded ? 0 : b * lanes + lane)] += p[(chunk * blocks + b) * lanes + lane];
  return total;
}

}  // namespace rhs_blas_detail

template <class Space>
class RhsPasses {
 public:
  // Coefficient sets a solver keeps at once (uploaded ones stay valid until the set is uploaded again).
  static constexpr int kSets = 4;

  RhsPasses() = default;
  explicit RhsPasses(const RhsLayout& layout)
      : layout_(layout),
        chunks_(static_cast<index_t>(std::min<index_t>(layout.c.sites, 256))),
        partials_("rhs_partials", static_cast<std::size_t>(chunks_ * layout.c.blocks * layout.c.lanes)),
        partials_host_(create_mirror_view(partials_)),
        coefficients_("rhs_coefficients", static_cast<std::size_t>(kSets * layout.slots())),
        coefficients_host_(create_mirror_view(coefficients_)) {
    if (layout.c.lanes > rhs_blas_detail::kMaxLanes) throw std::logic_error("RhsPasses: a layout of " + std::to_string(layout.c.lanes) + " lanes");
  }

  const RhsLayout& layout() const { return layout_; }
  int slots() const { return layout_.slots(); }

  // values[r] for every right-hand side into coefficient set `set` (zero past values.size()), for
  // the passes to read as scale x values[r].
  RhsCoefficient upload(int set, const std::vector<double>& values, double scale = 1) const {
    if (set < 0 || set >= kSets) throw std::out_of_range("RhsPasses: no coefficient set " + std::to_string(set));
    const int n = slots();
    double* host = coefficients_host_.data() + set * n;
    for (int r = 0; r < n; ++r) host[r] = static_cast<std::size_t>(r) < values.size() ? values[static_cast<std::size_t>(r)] : 0.0;
    if constexpr (!Space::host_accessible) deep_copy(coefficients_, coefficients_host_);
    return {scale, coefficients_.data() + set * n};
  }

  // ||x_r||^2 of every right-hand side, on this process's sites.
  template <class Real>
  std::vector<double> norm2(const View<Real, 1, LayoutRight, Space>& x) const {
    check(x);
    const Real* xp = x.data();
    return rhs_blas_detail::pass<Space>("rhs_norm2", layout_, chunks_, partials_, partials_host_, true, DSLASH_LAMBDA(index_t i, int) {
      const double v = xp[i];
      return v * v;
    });
  }

  // y_r = a_r x_r + b_r y_r for every right-hand side r; with `norms`, returns ||y_r||^2 (this
  // process's sites), else an empty vector.
  template <class Real>
  std::vector<double> axpby(RhsCoefficient a, const View<Real, 1, LayoutRight, Space>& x, RhsCoefficient b, const View<Real, 1, LayoutRight, Space>& y,
                            bool norms = false) const {
    check(x);
    check(y);
    const Real* xp = x.data();
    Real* yp = y.data();
    return rhs_blas_detail::pass<Space>("rhs_axpby", layout_, chunks_, partials_, partials_host_, norms, DSLASH_LAMBDA(index_t i, int r) {
      const Real v = static_cast<Real>(a(r)) * xp[i] + static_cast<Real>(b(r)) * yp[i];
      yp[i] = v;
      return static_cast<double>(v) * static_cast<double>(v);
    });
  }

 private:
  template <class Real>
  void check(const View<Real, 1, LayoutRight, Space>& v) const {
    if (static_cast<std::size_t>(2 * layout_.c.count()) != v.size())
      throw std::invalid_argument("rhs blas: buffer \"" + v.label() + "\" does not have the layout's size");
  }

  RhsLayout layout_;
  index_t chunks_ = 1;
  View<double, 1, LayoutRight, Space> partials_;
  decltype(create_mirror_view(std::declval<View<double, 1, LayoutRight, Space>>())) partials_host_;
  View<double, 1, LayoutRight, Space> coefficients_;
  decltype(create_mirror_view(std::declval<View<double, 1, LayoutRight, Space>>())) coefficients_host_;
};

}  // namespace dslash
