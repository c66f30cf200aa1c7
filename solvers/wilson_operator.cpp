#include "solvers/wilson_operator.hpp"

#include <chrono>
#include <stdexcept>

#include "dslash/lattice/field_ops.hpp"

namespace dslash {

namespace {

DslashConfig with(DslashConfig c, Subset out, bool dagger) {
  c.out = out;
  c.dagger = dagger;
  return c;
}

double checked_mass(double mass) {
  if (!(4 + mass > 0)) throw std::invalid_argument("EvenOddWilson: 4 + mass must be positive (mass = " + std::to_string(mass) + ")");
  return mass;
}

}  // namespace

template <class Real>
EvenOddWilson<Real>::EvenOddWilson(const GaugeField<Real>& u, double mass, const DslashConfig& config)
    : mass_(checked_mass(mass)),
      d_eo_(u, with(config, Subset::Even, false)),
      d_oe_(u, with(config, Subset::Odd, false)),
      d_eo_dagger_(u, with(config, Subset::Even, true)),
      d_oe_dagger_(u, with(config, Subset::Odd, true)),
      odd_scratch_(d_oe_.allocate_spinors("eo_wilson_odd_scratch")) {}

template <class Real>
void EvenOddWilson<Real>::pack(const std::vector<SpinorField<Real>>& fields, const vector_type& packed) const {
  if (fields.empty()) throw std::invalid_argument("EvenOddWilson::pack: no fields");
  // The kernel whose input has the fields' parity.
  kernel(neighbour_subset(fields.front().subset())).pack(fields, packed);
}

template <class Real>
void EvenOddWilson<Real>::unpack(const vector_type& packed, std::vector<SpinorField<Real>>& fields) const {
  if (fields.empty()) throw std::invalid_argument("EvenOddWilson::unpack: no fields");
  kernel(fields.front().subset()).unpack(packed, fields);
}

template <class Real>
void EvenOddWilson<Real>::apply(const vector_type& in, const vector_type& out, bool dagger) const {
  const double a = 4 + mass_;
  hop(dagger ? d_oe_dagger_ : d_oe_, in, odd_scratch_);
  hop(dagger ? d_eo_dagger_ : d_eo_, odd_scratch_, out);
  axpby(static_cast<Real>(a), in, static_cast<Real>(-1 / (4 * a)), out);
}

template <class Real>
void EvenOddWilson<Real>::residual(const vector_type& b, const vector_type& x, const vector_type& r) const {
  apply(x, r);
  xpay(b, Real(-1), r);
}

template <class Real>
void EvenOddWilson<Real>::prepare_source(const vector_type& b_even, const vector_type& b_odd, const vector_type& b_hat) const {
  hop(d_eo_, b_odd, b_hat);
  xpay(b_even, static_cast<Real>(1 / (2 * (4 + mass_))), b_hat);
}

template <class Real>
void EvenOddWilson<Real>::reconstruct(const vector_type& x_even, const vector_type& b_odd, const vector_type& x_odd) const {
  const double a = 4 + mass_;
  hop(d_oe_, x_even, x_odd);
  axpby(static_cast<Real>(1 / a), b_odd, static_cast<Real>(1 / (2 * a)), x_odd);
}

template <class Real>
void EvenOddWilson<Real>::hop(const DslashKernel<Real>& k, const vector_type& in, const vector_type& out) const {
  const auto t0 = std::chrono::steady_clock::now();
  k.apply(in, out);
  dslash_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++dslash_count_;
}

template class EvenOddWilson<float>;
template class EvenOddWilson<double>;

template <class To, class From>
void convert(const EvenOddWilson<From>& op_from, const typename EvenOddWilson<From>::vector_type& src, const EvenOddWilson<To>& op_to,
             const typename EvenOddWilson<To>::vector_type& dst) {
  if (op_from.complex_layout() == op_to.complex_layout()) {
    convert_copy(src, dst);
    return;
  }
  std::vector<SpinorField<From>> fields;
  for (int r = 0; r < op_from.config().nrhs; ++r) fields.emplace_back(op_from.geometry(), Subset::Even);
  op_from.unpack(src, fields);
  std::vector<SpinorField<To>> converted;
  for (const auto& f : fields) converted.push_back(convert_precision<To>(f));
  op_to.pack(converted, dst);
}

#define DSLASH_CONVERT(To, From)                                                                                              \
  template void convert<To, From>(const EvenOddWilson<From>&, const EvenOddWilson<From>::vector_type&, const EvenOddWilson<To>&, \
                                  const EvenOddWilson<To>::vector_type&);
DSLASH_CONVERT(float, float)
DSLASH_CONVERT(float, double)
DSLASH_CONVERT(double, float)
DSLASH_CONVERT(double, double)
#undef DSLASH_CONVERT

}  // namespace dslash
