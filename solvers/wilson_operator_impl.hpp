#pragma once
// EvenOddWilson's definition (solvers/wilson_operator.hpp), instantiated per memory space by
// solvers/instantiate.hpp.
#include "solvers/wilson_operator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "dslash/lattice/field_ops.hpp"
#include "solvers/half_hopping.hpp"
#include "solvers/rhs_blas.hpp"

namespace dslash {

namespace eo_wilson_detail {

template <class Real>
double checked_mass(double mass) {
  if (!(4 + mass > 0)) throw std::invalid_argument("EvenOddWilson: 4 + mass must be positive (mass = " + std::to_string(mass) + ")");
  // Every pass takes the diagonal 4 + m in Real: past Real's range it is Inf, and every iterate NaN.
  if (!std::isfinite(static_cast<Real>(4 + mass))) {
    char line[160];
    std::snprintf(line, sizeof line, "EvenOddWilson: 4 + mass = %.3g overflows %s precision (largest %.3g)", 4 + mass,
                  sizeof(Real) == 4 ? "single" : "double", static_cast<double>(std::numeric_limits<Real>::max()));
    throw std::invalid_argument(line);
  }
  return mass;
}

// One process's hopping term: half precision storage where config.half asks (float only; a double
// kernel refuses it with the reason), else the kernels in Real.
template <class Real, class Space>
std::shared_ptr<const HoppingTerm<Real, Space>> local_hopping(const GaugeField<Real>& u, const DslashConfig& config) {
  if constexpr (std::is_same_v<Real, float>)
    if (config.half) return std::make_shared<const HalfHopping<Space>>(u, config);
  return std::make_shared<const LocalHopping<Real, Space>>(u, config);
}

}  // namespace eo_wilson_detail

template <class Real, class Space>
EvenOddWilson<Real, Space>::EvenOddWilson(const GaugeField<Real>& u, double mass, const DslashConfig& config)
    : EvenOddWilson(eo_wilson_detail::local_hopping<Real, Space>(u, config), eo_wilson_detail::checked_mass<Real>(mass)) {}

template <class Real, class Space>
EvenOddWilson<Real, Space>::EvenOddWilson(std::shared_ptr<const HoppingTerm<Real, Space>> hopping, double mass)
    : mass_(eo_wilson_detail::checked_mass<Real>(mass)), hopping_(std::move(hopping)), odd_scratch_(hopping_->allocate("eo_wilson_odd_scratch")) {
  if (d_eo().layout().folded) {
    const std::vector<index_t> slot_of_site = d_eo().slots_of_sites(Subset::Even);
    std::vector<index_t> site_of_slot(slot_of_site.size());
    for (std::size_t i = 0; i < slot_of_site.size(); ++i) site_of_slot[static_cast<std::size_t>(slot_of_site[i])] = static_cast<index_t>(i);
    const auto to_space = [](const std::vector<index_t>& v, const char* label) {
      View<index_t, 1, LayoutRight, Space> view(label, v.size());
      const auto host = create_mirror_view(view);
      std::copy(v.begin(), v.end(), host.data());
      deep_copy(view, host);
      return view;
    };
    even_slots_ = to_space(slot_of_site, "eo_wilson_even_slots");
    even_sites_ = to_space(site_of_slot, "eo_wilson_even_sites");
  }
}

template <class Real, class Space>
SpinorSlots EvenOddWilson<Real, Space>::slots() const {
  const KernelLayout& l = d_eo().layout();
  return {l.lanes, l.folded, d_eo().spinor_strides(), even_slots_.data(), even_sites_.data()};
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::pack(const std::vector<SpinorField<Real>>& fields, const vector_type& packed) const {
  if (fields.empty()) throw std::invalid_argument("EvenOddWilson::pack: no fields");
  // The kernel whose input has the fields' parity.
  kernel(neighbour_subset(fields.front().subset())).pack(fields, packed);
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::unpack(const vector_type& packed, std::vector<SpinorField<Real>>& fields) const {
  if (fields.empty()) throw std::invalid_argument("EvenOddWilson::unpack: no fields");
  kernel(fields.front().subset()).unpack(packed, fields);
}

// The last pass, out = (4 + m) in - D D in / (4 (4 + m)), rides in the second hop where the hopping
// term can fuse it (one process; under MPI, CPU ranks whose halo is in before the kernel, and GPU
// ranks overlapping with t alone split, the pass split between the kernel and the face completion),
// with its norm and BiCGStab's inner products: that saves a pass over three vectors (two with its
// norm), 3 of the 14 of a CG iteration, 2 x 2 of BiCGStab's 19. Elsewhere the pass stays a BLAS one.
template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::apply_here(const vector_type& in, const vector_type& out, bool dagger, bool want_norm2, const vector_type* w,
                                               const vector_type* w2, ReduceInto<double> norm_into) const {
  const double a = 4 + mass_;
  const Real ca = static_cast<Real>(a), cb = static_cast<Real>(-1 / (4 * a));
  if (w2 == nullptr) w2 = w;
  // out = a in + b out as a BLAS pass, with the sums asked for.
  const auto xpay_pass = [&]() -> NormDot {
    if (norm_into.device != nullptr) {
      dslash::axpby_norm2(ca, in, cb, out, norm_into);
      return {};
    }
    if (w != nullptr) return caxpby_norm2_dot(complex_layout(), std::complex<double>(a), in, std::complex<double>(-1 / (4 * a)), out, *w, *w2);
    if (want_norm2) return {dslash::axpby_norm2(ca, in, cb, out), {}, {}};
    axpby(ca, in, cb, out);
    return {};
  };
  // A hopping term that keeps the odd vector in its own storage (HalfHopping) takes both hops at once.
  if (hopping_->applies_pairs()) {
    counted([&] {
      hopping_->apply_pair(dagger, in, out);
      return true;
    }, 2);
    return xpay_pass();
  }
  hop(Subset::Odd, dagger, in, odd_scratch_);
  if (norm_into.device != nullptr) {
    if (!counted([&] { return hopping_->apply_xpay_into(Subset::Even, dagger, odd_scratch_, ca, in, cb, out, norm_into); })) {
      hop(Subset::Even, dagger, odd_scratch_, out);
      xpay_pass();
    }
    return {};
  }
  if (const std::optional<NormDot> sums = hop_xpay(Subset::Even, dagger, odd_scratch_, ca, in, cb, out, w, w2)) return *sums;
  // A kernel that fuses the xpay but not the inner products (the GPU's naive one: its registers)
  // still saves the pass's read-modify-write: the inner products then read two or three buffers, not five.
  if (w != nullptr)
    if (const std::optional<NormDot> sums = hop_xpay(Subset::Even, dagger, odd_scratch_, ca, in, cb, out, nullptr, nullptr)) {
      if (w2 == w) {
        const std::complex<double> dot = dslash::dot(complex_layout(), *w, out);
        return {sums->norm2, dot, dot};
      }
      const auto [dot, dot2] = dslash::dot2(complex_layout(), *w, *w2, out);
      return {sums->norm2, dot, dot2};
    }
  hop(Subset::Even, dagger, odd_scratch_, out);
  return xpay_pass();
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::apply(const vector_type& in, const vector_type& out, bool dagger) const {
  apply_here(in, out, dagger, false);
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::apply_norm2(const vector_type& in, const vector_type& out, bool dagger) const {
  return global_sum(apply_here(in, out, dagger, true).norm2);
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::apply_norm2(const vector_type& in, const vector_type& out, bool dagger, const DeviceSums<Space>& sums, int i) const {
  if (hopping_->spans_processes()) return sums.set(i, apply_norm2(in, out, dagger));
  apply_here(in, out, dagger, true, nullptr, nullptr, sums.into(i));
}

template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::apply_norm2_dot(const vector_type& in, const vector_type& out, const vector_type& w, bool dagger) const {
  return global_sum(apply_here(in, out, dagger, true, &w));
}

template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::apply_norm2_dot(const vector_type& in, const vector_type& out, const vector_type& w, const vector_type& w2,
                                                    bool dagger) const {
  return global_sum(apply_here(in, out, dagger, true, &w, &w2));
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::residual(const vector_type& b, const vector_type& x, const vector_type& r) const {
  apply(x, r);
  return global_sum(dslash::axpby_norm2(Real(1), b, Real(-1), r));
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::prepare_source(const vector_type& b_even, const vector_type& b_odd, const vector_type& b_hat) const {
  hop(Subset::Even, false, b_odd, b_hat);
  xpay(b_even, static_cast<Real>(1 / (2 * (4 + mass_))), b_hat);
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::reconstruct(const vector_type& x_even, const vector_type& b_odd, const vector_type& x_odd) const {
  const double a = 4 + mass_;
  hop(Subset::Odd, false, x_even, x_odd);
  axpby(static_cast<Real>(1 / a), b_odd, static_cast<Real>(1 / (2 * a)), x_odd);
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::norm2(const vector_type& v) const {
  return global_sum(dslash::norm2(v));
}

template <class Real, class Space>
std::complex<double> EvenOddWilson<Real, Space>::dot(const vector_type& x, const vector_type& y) const {
  return global_sum(NormDot{0, dslash::dot(complex_layout(), x, y), {}}).dot;
}

template <class Real, class Space>
std::vector<double> EvenOddWilson<Real, Space>::rhs_norm2(const vector_type& v) const {
  const RhsPasses<Space> passes = rhs_passes();
  const RhsSums<Space> sums(1, passes.slots());
  passes.norm2(v, sums, 0);
  std::vector<double> each = sums.read(0);
  each.resize(static_cast<std::size_t>(config().nrhs));
  return each;
}

template <class Real, class Space>
RhsPasses<Space> EvenOddWilson<Real, Space>::rhs_passes() const {
  typename RhsPasses<Space>::SumOverProcesses over;
  if (hopping_->spans_processes()) over = [hopping = hopping_](std::span<double> partials) { hopping->sum(partials); };
  return RhsPasses<Space>(RhsLayout{complex_layout(), slots().folded}, std::move(over));
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::global_sum(double partial) const {
  hopping_->sum(std::span<double>(&partial, 1));
  return partial;
}

template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::global_sum(NormDot partial) const {
  std::array<double, 5> sums = partial.sums();
  hopping_->sum(sums);
  return NormDot::from_sums(sums);
}

template <class Real, class Space>
template <class Call>
auto EvenOddWilson<Real, Space>::counted(const Call& call, int hops) const {
  // The hop's own time (solvers/hop_clock.hpp), not that of a GPU pass queued before it.
  clock_.start();
  decltype(call()) ran{};
  try {
    ran = call();
  } catch (...) {
    clock_.cancel();
    throw;
  }
  if (ran) {
    clock_.stop();
    dslash_count_ += hops;
  } else {
    clock_.cancel();
  }
  return ran;
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::hop(Subset out, bool dagger, const vector_type& in, const vector_type& result) const {
  counted([&] {
    hopping_->apply(out, dagger, in, result);
    return true;
  });
}

template <class Real, class Space>
std::optional<NormDot> EvenOddWilson<Real, Space>::hop_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b,
                                                            const vector_type& result, const vector_type* w, const vector_type* w2) const {
  // Returns after the kernel (its sums come back to the host).
  return counted([&] { return hopping_->apply_xpay(out, dagger, in, a, x, b, result, w, w2); });
}

namespace eo_wilson_detail {

// For every real of an even buffer, between two layouts of it: v = load(to_index, from_index), then
// store(to_index, from_index, v, acc), where acc sums into *sum (a double: the pass is then a
// parallel_reduce) or is thrown away (sum null). The walked layout's lanes (below) are a group whose
// reals lie side by side component by component: the W lanes of an outer site (vnode: sites site_of_slot[o W
// + l]) or of a block of right-hand sides (mrhs: right-hand sides b W + l of one site). On a CPU one
// launch index is a whole group: the lanes' sources are found once, and the stores go in the
// destination's order, a cache line at a time (a (site, right-hand side) an index would store its 24
// reals a line apart each). On a GPU one index is one lane, so the threads of a warp store adjacent
// reals, and a lane loads its 24 reals before it stores any: the compiler cannot move a load past a
// store to a buffer that may be the same (docs/history/HISTORY.md, "Layout conversions, and what a
// 32^4 solve cannot shed").
template <class Space, class Load, class Store>
void for_each_real_pair(const char* label, const SpinorSlots& from, const SpinorSlots& to, index_t sites, int nrhs, const Load& load,
                        const Store& store, double* sum = nullptr) {
  constexpr int kMaxLanes = 16;  // KernelLayout's widest
  constexpr bool lane_per_index = !std::is_same_v<Space, HostSpace>;
  // The layout whose slots the indices walk: the destination's, but on a GPU between two folded
  // layouts the one with more lanes (single precision), so that a warp's 32 lanes cover whole outer
  // sites of it and the fewer-lane side's in pairs: walked the other way a warp reads half of each
  // single-precision segment, whose other half another warp, far off, reads again.
  const SpinorSlots walk = lane_per_index && from.folded && to.folded && from.lanes > to.lanes ? from : to;
  const int lanes = walk.lanes;
  if (lanes > kMaxLanes) throw std::logic_error("EvenOddWilson: a layout of " + std::to_string(lanes) + " lanes");
  // Not folded (mrhs), the walk covers whole blocks of lanes and skips the padding past nrhs (the
  // two layouts may pad to different counts: their lanes differ); folded, nrhs is 1.
  const int blocks = walk.folded ? nrhs : (nrhs + lanes - 1) / lanes;  // groups a site (not folded) or outer site
  const index_t groups = walk.folded ? sites * nrhs / lanes : sites * blocks;
  const SpinorSlots::ComponentOffsets to_offset = to.offsets(), from_offset = from.offsets();
  const auto pairs = DSLASH_LAMBDA(index_t i, double& acc) {
    const index_t g = lane_per_index ? i / lanes : i;
    const int first = lane_per_index ? static_cast<int>(i % lanes) : 0, lanes_here = lane_per_index ? 1 : lanes;
    index_t to_base[kMaxLanes], from_base[kMaxLanes];
    const index_t outer = g / blocks;
    const int block = static_cast<int>(g % blocks);
    const int left = nrhs - block * lanes - first;  // right-hand sides from this lane on, not padding
    const int count = walk.folded || left > lanes_here ? lanes_here : left;
    if (count <= 0) return;
    for (int k = 0; k < count; ++k) {
      const int l = first + k;
      const index_t site = walk.folded ? walk.site_of_slot[outer * lanes + l] : outer;
      const int r = walk.folded ? block : block * lanes + l;
      to_base[k] = to.index(site, r, 0);
      from_base[k] = from.index(site, r, 0);
    }
    if (lane_per_index) {  // (not constexpr: an extended lambda cannot first capture in one)
      decltype(load(index_t{}, index_t{})) v[24];
      for (int c = 0; c < 24; ++c) v[c] = load(to_base[0] + to_offset[c], from_base[0] + from_offset[c]);
      for (int c = 0; c < 24; ++c) store(to_base[0] + to_offset[c], from_base[0] + from_offset[c], v[c], acc);
    } else {
      for (int c = 0; c < 24; ++c)
        for (int k = 0; k < count; ++k) {
          const index_t o = to_base[k] + to_offset[c], f = from_base[k] + from_offset[c];
          store(o, f, load(o, f), acc);
        }
    }
  };
  const RangePolicy<typename Space::execution_space> policy(lane_per_index ? groups * lanes : groups);
  if (sum != nullptr) {
    parallel_reduce(label, policy, DSLASH_LAMBDA(index_t i, double& acc) { pairs(i, acc); }, *sum);
  } else {
    parallel_for(label, policy, DSLASH_LAMBDA(index_t i) {
      double unused = 0;
      pairs(i, unused);
    });
  }
}

// The same between two operators' even buffers, op_from's into op_to's.
template <class To, class From, class Space, class Load, class Store>
void for_each_real_pair(const char* label, const EvenOddWilson<From, Space>& op_from, const EvenOddWilson<To, Space>& op_to, const Load& load,
                        const Store& store, double* sum = nullptr) {
  for_each_real_pair<Space>(label, op_from.slots(), op_to.slots(), op_from.geometry().half_volume(), op_from.config().nrhs, load, store, sum);
}

}  // namespace eo_wilson_detail

template <class To, class From, class Space>
void convert(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& src, const EvenOddWilson<To, Space>& op_to,
             const typename EvenOddWilson<To, Space>::vector_type& dst) {
  if (op_from.complex_layout() == op_to.complex_layout()) {
    convert_copy(src, dst);
    return;
  }
  const From* in = src.data();
  To* out = dst.data();
  eo_wilson_detail::for_each_real_pair("convert_layout", op_from, op_to, DSLASH_LAMBDA(index_t, index_t i) { return static_cast<To>(in[i]); },
                                       DSLASH_LAMBDA(index_t o, index_t, To v, double&) { out[o] = v; });
}

namespace eo_wilson_detail {
// y += x (+ c p) and x = 0 between two operators' layouts: add_and_zero's two forms; p is read only
// where there is a term (as blas_detail::add_and_zero_pass in one layout).
template <bool kTerm, class To, class From, class Space, class C>
void add_and_zero_layouts(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x, C c,
                          const typename EvenOddWilson<From, Space>::vector_type& p, const EvenOddWilson<To, Space>& op_to,
                          const typename EvenOddWilson<To, Space>::vector_type& y) {
  if (op_from.complex_layout() == op_to.complex_layout()) {
    if constexpr (kTerm) add_and_zero(x, c, p, y);
    else add_and_zero(x, y);
    return;
  }
  From* in = x.data();
  const From* term = p.data();
  To* out = y.data();
  // On the host the coefficient is read once; on a GPU by each lane, before its stores, which keeps
  // it out of the lane's loop.
  const auto coefficient = [&] {
    if constexpr (Space::host_accessible) return blas_detail::value(c);
    else return c;
  }();
  for_each_real_pair(kTerm ? "add_axpy_and_zero_layout" : "add_and_zero_layout", op_from, op_to,
                     DSLASH_LAMBDA(index_t o, index_t i) {
                       To v = out[o] + static_cast<To>(in[i]);
                       if (kTerm) v += static_cast<To>(blas_detail::value(coefficient)) * static_cast<To>(term[i]);  // (not constexpr: an extended lambda)
                       return v;
                     },
                     DSLASH_LAMBDA(index_t o, index_t i, To v, double&) {
                       out[o] = v;
                       in[i] = From(0);
                     });
}
}  // namespace eo_wilson_detail

template <class To, class From, class Space>
void add_and_zero(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x, const EvenOddWilson<To, Space>& op_to,
                  const typename EvenOddWilson<To, Space>::vector_type& y) {
  eo_wilson_detail::add_and_zero_layouts<false>(op_from, x, From(0), x, op_to, y);
}

template <class To, class From, class Space>
void add_and_zero(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x, DeviceRatio<From> c,
                  const typename EvenOddWilson<From, Space>::vector_type& p, const EvenOddWilson<To, Space>& op_to,
                  const typename EvenOddWilson<To, Space>::vector_type& y) {
  eo_wilson_detail::add_and_zero_layouts<true>(op_from, x, c, p, op_to, y);
}

template <class To, class From, class Space>
double convert_difference(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x,
                          const typename EvenOddWilson<From, Space>::vector_type& y, const EvenOddWilson<To, Space>& op_to,
                          const typename EvenOddWilson<To, Space>::vector_type& dst) {
  if (op_from.complex_layout() == op_to.complex_layout()) return op_from.global_sum(convert_difference_norm2(x, y, dst));
  const From* xp = x.data();
  const From* yp = y.data();
  To* out = dst.data();
  double sum = 0;
  eo_wilson_detail::for_each_real_pair("convert_difference_layout", op_from, op_to, DSLASH_LAMBDA(index_t, index_t i) { return xp[i] - yp[i]; },
                                       DSLASH_LAMBDA(index_t o, index_t, From d, double& acc) {
                                         acc += static_cast<double>(d) * static_cast<double>(d);
                                         out[o] = static_cast<To>(d);
                                       },
                                       &sum);
  return op_from.global_sum(sum);
}

}  // namespace dslash
