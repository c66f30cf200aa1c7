#pragma once
// Fills, linear algebra, gauge transformations and observables on the lattice fields. All run
// through the portable dispatch (parallel_for / parallel_reduce). Random fills are keyed by
// (seed, lattice site), so they give the same numbers for any thread count and any subset.
#include <complex>
#include <cstdint>

#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"

namespace dslash {

// Spinors
template <class Real> void fill_gaussian(SpinorField<Real>& psi, std::uint64_t seed);
template <class Real> void fill_zero(SpinorField<Real>& psi);
template <class Real> double norm2(const SpinorField<Real>& psi);  // sum |psi|^2
template <class Real> std::complex<double> inner_product(const SpinorField<Real>& a, const SpinorField<Real>& b);  // <a, b> = sum conj(a) b
template <class Real> void axpy(std::complex<Real> a, const SpinorField<Real>& x, SpinorField<Real>& y);  // y += a x
// Copies the sites of `from` that `to` also holds (full <-> checkerboard, or same subset); the
// sites of `to` that `from` lacks are set to zero.
template <class Real> void copy_sites(const SpinorField<Real>& from, SpinorField<Real>& to);
template <class To, class From> SpinorField<To> convert_precision(const SpinorField<From>& psi);
// max |a - b| / max |b| over every component, in double; throws if the fields hold different sites.
template <class RA, class RB> double relative_difference(const SpinorField<RA>& a, const SpinorField<RB>& b);

// Gauge fields
template <class Real> void fill_unit(GaugeField<Real>& u);
template <class Real> void fill_random_su3(GaugeField<Real>& u, std::uint64_t seed);
template <class To, class From> GaugeField<To> convert_precision(const GaugeField<From>& u);
template <class Real> double plaquette(const GaugeField<Real>& u);   // mean Re tr(U_p) / 3 over 6V plaquettes
template <class Real> double link_trace(const GaugeField<Real>& u);  // mean Re tr(U) / 3 over 4V links

// Gauge transformations g(x) in SU(3): U_mu(x) -> g(x) U_mu(x) g(x+mu)^dagger, psi(x) -> g(x) psi(x).
template <class Real>
class GaugeTransform {
 public:
  GaugeTransform(const Geometry& geom, std::uint64_t seed);  // random SU(3) at every site
  const Geometry& geometry() const { return geom_; }
  ColourMatrix<Real> at(site_t s) const;

 private:
  Geometry geom_;
  View<std::complex<Real>, 3> g_;
};
template <class Real> void apply_gauge_transform(const GaugeTransform<Real>& g, GaugeField<Real>& u);
template <class Real> void apply_gauge_transform(const GaugeTransform<Real>& g, SpinorField<Real>& psi);

}  // namespace dslash
