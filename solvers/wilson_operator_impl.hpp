#pragma once
// EvenOddWilson's definition (solvers/wilson_operator.hpp), instantiated per memory space by
// solvers/instantiate.hpp.
#include "solvers/wilson_operator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>

#include "dslash/lattice/field_ops.hpp"

namespace dslash {

namespace eo_wilson_detail {

inline double checked_mass(double mass) {
  if (!(4 + mass > 0)) throw std::invalid_argument("EvenOddWilson: 4 + mass must be positive (mass = " + std::to_string(mass) + ")");
  return mass;
}

}  // namespace eo_wilson_detail

template <class Real, class Space>
EvenOddWilson<Real, Space>::EvenOddWilson(const GaugeField<Real>& u, double mass, const DslashConfig& config)
    : EvenOddWilson(std::make_shared<const LocalHopping<Real, Space>>(u, config), eo_wilson_detail::checked_mass(mass)) {}

template <class Real, class Space>
EvenOddWilson<Real, Space>::EvenOddWilson(std::shared_ptr<const HoppingTerm<Real, Space>> hopping, double mass)
    : mass_(eo_wilson_detail::checked_mass(mass)), hopping_(std::move(hopping)), odd_scratch_(kernel(Subset::Odd).allocate_spinors("eo_wilson_odd_scratch")) {
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

// out = D_{e<-o} D_{o<-e} in (or the daggers'): M_ee_hat but for its last pass, a x + b out.
template <class Real, class Space>
void EvenOddWilson<Real, Space>::two_hops(const vector_type& in, const vector_type& out, bool dagger) const {
  hop(Subset::Odd, dagger, in, odd_scratch_);
  hop(Subset::Even, dagger, odd_scratch_, out);
}

// The last pass, out = (4 + m) in - D D in / (4 (4 + m)), rides in the second hop where the hopping
// term can fuse it (one process; under MPI, CPU ranks whose halo is in before the kernel): that
// saves a pass over three vectors (two with its norm), 3 of the 14 of a CG iteration. Where the
// halo faces complete the second hop after its kernel (overlap, the GPU), the pass stays a BLAS one.
template <class Real, class Space>
double EvenOddWilson<Real, Space>::apply_here(const vector_type& in, const vector_type& out, bool dagger, bool want_norm2) const {
  const double a = 4 + mass_;
  const Real ca = static_cast<Real>(a), cb = static_cast<Real>(-1 / (4 * a));
  hop(Subset::Odd, dagger, in, odd_scratch_);
  if (const std::optional<double> norm2 = hop_xpay(Subset::Even, dagger, odd_scratch_, ca, in, cb, out)) return *norm2;
  hop(Subset::Even, dagger, odd_scratch_, out);
  if (want_norm2) return axpby_norm2(ca, in, cb, out);
  axpby(ca, in, cb, out);
  return 0;
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::apply(const vector_type& in, const vector_type& out, bool dagger) const {
  apply_here(in, out, dagger, false);
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::apply_norm2(const vector_type& in, const vector_type& out, bool dagger) const {
  return global_sum(apply_here(in, out, dagger, true));
}

template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::apply_norm2_dot(const vector_type& in, const vector_type& out, const vector_type& w, bool dagger) const {
  const double a = 4 + mass_;
  two_hops(in, out, dagger);
  return global_sum(caxpby_norm2_dot(complex_layout(), std::complex<double>(a), in, std::complex<double>(-1 / (4 * a)), out, w));
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::residual(const vector_type& b, const vector_type& x, const vector_type& r) const {
  apply(x, r);
  return global_sum(axpby_norm2(Real(1), b, Real(-1), r));
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
  return global_sum(NormDot{0, dslash::dot(complex_layout(), x, y)}).dot;
}

template <class Real, class Space>
double EvenOddWilson<Real, Space>::global_sum(double partial) const {
  hopping_->sum(std::span<double>(&partial, 1));
  return partial;
}

template <class Real, class Space>
NormDot EvenOddWilson<Real, Space>::global_sum(NormDot partial) const {
  std::array<double, 3> sums{partial.norm2, partial.dot.real(), partial.dot.imag()};
  hopping_->sum(sums);
  return {sums[0], {sums[1], sums[2]}};
}

template <class Real, class Space>
template <class Call>
auto EvenOddWilson<Real, Space>::counted(const Call& call) const {
  const auto t0 = std::chrono::steady_clock::now();
  const auto ran = call();
  if (ran) {
    dslash_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++dslash_count_;
  }
  return ran;
}

template <class Real, class Space>
void EvenOddWilson<Real, Space>::hop(Subset out, bool dagger, const vector_type& in, const vector_type& result) const {
  counted([&] {
    hopping_->apply(out, dagger, in, result);
    Space::execution_space::fence();  // a GPU launch returns before the kernel ends
    return true;
  });
}

template <class Real, class Space>
std::optional<double> EvenOddWilson<Real, Space>::hop_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b,
                                                           const vector_type& result) const {
  // Returns after the kernel (its sum comes back to the host).
  return counted([&] { return hopping_->apply_xpay(out, dagger, in, a, x, b, result); });
}

template <class To, class From, class Space>
void convert(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& src, const EvenOddWilson<To, Space>& op_to,
             const typename EvenOddWilson<To, Space>::vector_type& dst) {
  if (op_from.complex_layout() == op_to.complex_layout()) {
    convert_copy(src, dst);
    return;
  }
  const SpinorSlots from = op_from.slots(), to = op_to.slots();
  const From* in = src.data();
  To* out = dst.data();
  const int nrhs = op_from.config().nrhs;
  // In the destination's order: its writes are sequential, and the reads of one destination outer
  // site's lanes fall in one or two source outer sites (measured, 24^4 vnode double <- single, 2
  // threads: 12.4 ms a call in the sites' order, the destination's lanes scattered).
  parallel_for("convert_layout", RangePolicy<typename Space::execution_space>(op_from.geometry().half_volume() * nrhs), DSLASH_LAMBDA(index_t n) {
    const index_t i = to.site_in_order(n / nrhs);
    const int r = static_cast<int>(n % nrhs);
    const SpinorSlots::SiteReals out_reals = to.reals(i, r), in_reals = from.reals(i, r);
    for (int c = 0; c < 24; ++c) out[out_reals[c]] = static_cast<To>(in[in_reals[c]]);
  });
}

}  // namespace dslash
