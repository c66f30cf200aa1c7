#include "dslash/lattice/field_ops.hpp"

#include "dslash/core.hpp"
#include "dslash/lattice/rng.hpp"

namespace dslash {

namespace {
// Made and reunitarised in double, then rounded: a single-precision field is its double twin to
// rounding, SU(3) to about 1e-7. Reunitarised in single, one link in a few million missed
// unitarity by more than 1e-5, and a 48^4 `bench --compress 12` refused its own random field.
template <class Real>
ColourMatrix<Real> random_su3(SiteRng& rng) {
  ColourMatrix<double> u;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) u(a, b) = {rng.gaussian(), rng.gaussian()};
  reunitarize(u);
  ColourMatrix<Real> r;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) r(a, b) = std::complex<Real>(u(a, b));
  return r;
}
}  // namespace

template <class Real>
void fill_gaussian(SpinorField<Real>& psi, std::uint64_t seed) {
  parallel_for("fill_gaussian", RangePolicy<>(psi.sites()), [&](index_t i) {
    SiteRng rng(seed, static_cast<std::uint64_t>(psi.lattice_site(i)));
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) psi(i, s, c) = {static_cast<Real>(rng.gaussian()), static_cast<Real>(rng.gaussian())};
  });
}

template <class Real>
void fill_zero(SpinorField<Real>& psi) {
  deep_copy(psi.view(), std::complex<Real>(0));
}

template <class Real>
double norm2(const SpinorField<Real>& psi) {
  const auto* p = psi.data();
  double sum = 0;
  parallel_reduce("norm2", RangePolicy<>(psi.sites() * 12), [=](index_t i, double& acc) { acc += std::norm(std::complex<double>(p[i])); }, sum);
  return sum;
}

template <class Real>
std::complex<double> inner_product(const SpinorField<Real>& a, const SpinorField<Real>& b) {
  if (a.sites() != b.sites()) throw std::invalid_argument("inner_product: fields hold different site sets");
  const auto *pa = a.data(), *pb = b.data();
  std::complex<double> sum = 0;
  parallel_reduce("inner_product", RangePolicy<>(a.sites() * 12),
                  [=](index_t i, std::complex<double>& acc) { acc += std::conj(std::complex<double>(pa[i])) * std::complex<double>(pb[i]); }, sum);
  return sum;
}

template <class Real>
void axpy(std::complex<Real> a, const SpinorField<Real>& x, SpinorField<Real>& y) {
  if (x.sites() != y.sites()) throw std::invalid_argument("axpy: fields hold different site sets");
  const auto* px = x.data();
  auto* py = y.data();
  parallel_for("axpy", RangePolicy<>(x.sites() * 12), [=](index_t i) { py[i] += a * px[i]; });
}

template <class Real>
void copy_sites(const SpinorField<Real>& from, SpinorField<Real>& to) {
  if (!(from.geometry() == to.geometry())) throw std::invalid_argument("copy_sites: lattices differ");
  const Geometry& g = to.geometry();
  parallel_for("copy_sites", RangePolicy<>(to.sites()), [&](index_t i) {
    const site_t s = to.lattice_site(i);
    index_t j = -1;  // storage index of site s in `from`, or -1 if it lacks s
    if (from.subset() == Subset::Full) j = s;
    else if (g.parity(s) == static_cast<int>(from.subset())) j = Geometry::cb_index(s);
    for (int sp = 0; sp < 4; ++sp)
      for (int c = 0; c < 3; ++c) to(i, sp, c) = j >= 0 ? from(j, sp, c) : std::complex<Real>(0);
  });
}

template <class To, class From>
SpinorField<To> convert_precision(const SpinorField<From>& psi) {
  SpinorField<To> out(psi.geometry(), psi.subset(), psi.view().label());
  const auto* in = psi.data();
  auto* o = out.data();
  parallel_for("convert_spinor", RangePolicy<>(psi.sites() * 12), [=](index_t i) { o[i] = std::complex<To>(in[i]); });
  return out;
}

template <class RA, class RB>
double relative_difference(const SpinorField<RA>& a, const SpinorField<RB>& b) {
  if (a.sites() != b.sites() || a.subset() != b.subset()) throw std::invalid_argument("relative_difference: fields hold different site sets");
  const std::complex<RA>* pa = a.data();
  const std::complex<RB>* pb = b.data();
  double diff = 0, scale = 0;
  for (index_t k = 0; k < a.sites() * 12; ++k) {
    const std::complex<double> x(pa[k]), y(pb[k]);
    diff = std::max(diff, std::abs(x - y));
    scale = std::max(scale, std::abs(y));
  }
  return scale > 0 ? diff / scale : diff;
}

template <class Real>
void fill_unit(GaugeField<Real>& u) {
  parallel_for("fill_unit", RangePolicy<>(u.geometry().volume()), [&](index_t s) {
    for (int mu = 0; mu < 4; ++mu) u.set_link(s, mu, ColourMatrix<Real>::identity());
  });
}

template <class Real>
void fill_random_su3(GaugeField<Real>& u, std::uint64_t seed) {
  parallel_for("fill_random_su3", RangePolicy<>(u.geometry().volume()), [&](index_t s) {
    for (int mu = 0; mu < 4; ++mu) {
      SiteRng rng(seed, static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(mu) + 1);
      u.set_link(s, mu, random_su3<Real>(rng));
    }
  });
}

template <class To, class From>
GaugeField<To> convert_precision(const GaugeField<From>& u) {
  GaugeField<To> out(u.geometry(), u.view().label());
  const auto* in = u.data();
  auto* o = out.data();
  parallel_for("convert_gauge", RangePolicy<>(u.geometry().volume() * 36), [=](index_t i) { o[i] = std::complex<To>(in[i]); });
  return out;
}

template <class Real>
double plaquette(const GaugeField<Real>& u) {
  const Geometry& g = u.geometry();
  double sum = 0;
  parallel_reduce("plaquette", RangePolicy<>(g.volume()), [&](index_t s, double& acc) {
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) {
        // U_mu(x) U_nu(x+mu) U_mu(x+nu)^dagger U_nu(x)^dagger
        const auto p = u.link(s, mu) * u.link(g.neighbour(s, mu, +1), nu) *
                       adjoint(u.link(g.neighbour(s, nu, +1), mu)) * adjoint(u.link(s, nu));
        acc += static_cast<double>(trace(p).real());
      }
  }, sum);
  return sum / (3.0 * 6.0 * static_cast<double>(g.volume()));
}

template <class Real>
double link_trace(const GaugeField<Real>& u) {
  double sum = 0;
  parallel_reduce("link_trace", RangePolicy<>(u.geometry().volume()), [&](index_t s, double& acc) {
    for (int mu = 0; mu < 4; ++mu) acc += static_cast<double>(trace(u.link(s, mu)).real());
  }, sum);
  return sum / (3.0 * 4.0 * static_cast<double>(u.geometry().volume()));
}

template <class Real>
GaugeTransform<Real>::GaugeTransform(const Geometry& geom, std::uint64_t seed)
    : geom_(geom), g_("gauge_transform", static_cast<std::size_t>(geom.volume()), 3, 3) {
  parallel_for("gauge_transform_fill", RangePolicy<>(geom.volume()), [&](index_t s) {
    SiteRng rng(seed, static_cast<std::uint64_t>(s), 99);
    const auto m = random_su3<Real>(rng);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) g_(s, a, b) = m(a, b);
  });
}

template <class Real>
ColourMatrix<Real> GaugeTransform<Real>::at(site_t s) const {
  ColourMatrix<Real> m;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) m(a, b) = g_(s, a, b);
  return m;
}

template <class Real>
void apply_gauge_transform(const GaugeTransform<Real>& g, GaugeField<Real>& u) {
  const Geometry& geom = u.geometry();
  parallel_for("gauge_transform_links", RangePolicy<>(geom.volume()), [&](index_t s) {
    for (int mu = 0; mu < 4; ++mu)
      u.set_link(s, mu, g.at(s) * u.link(s, mu) * adjoint(g.at(geom.neighbour(s, mu, +1))));
  });
}

template <class Real>
void apply_gauge_transform(const GaugeTransform<Real>& g, SpinorField<Real>& psi) {
  parallel_for("gauge_transform_spinor", RangePolicy<>(psi.sites()), [&](index_t i) {
    const auto m = g.at(psi.lattice_site(i));
    for (int sp = 0; sp < 4; ++sp) {
      ColourVector<Real> v{psi(i, sp, 0), psi(i, sp, 1), psi(i, sp, 2)};
      v = m * v;
      for (int c = 0; c < 3; ++c) psi(i, sp, c) = v[static_cast<std::size_t>(c)];
    }
  });
}

#define DSLASH_INSTANTIATE(R)                                                                           \
  template void fill_gaussian<R>(SpinorField<R>&, std::uint64_t);                                      \
  template void fill_zero<R>(SpinorField<R>&);                                                         \
  template double norm2<R>(const SpinorField<R>&);                                                     \
  template std::complex<double> inner_product<R>(const SpinorField<R>&, const SpinorField<R>&);        \
  template void axpy<R>(std::complex<R>, const SpinorField<R>&, SpinorField<R>&);                      \
  template void copy_sites<R>(const SpinorField<R>&, SpinorField<R>&);                                 \
  template void fill_unit<R>(GaugeField<R>&);                                                          \
  template void fill_random_su3<R>(GaugeField<R>&, std::uint64_t);                                     \
  template double plaquette<R>(const GaugeField<R>&);                                                  \
  template double link_trace<R>(const GaugeField<R>&);                                                 \
  template class GaugeTransform<R>;                                                                    \
  template void apply_gauge_transform<R>(const GaugeTransform<R>&, GaugeField<R>&);                    \
  template void apply_gauge_transform<R>(const GaugeTransform<R>&, SpinorField<R>&);
DSLASH_INSTANTIATE(float)
DSLASH_INSTANTIATE(double)
#undef DSLASH_INSTANTIATE

template SpinorField<float> convert_precision<float, double>(const SpinorField<double>&);
template SpinorField<double> convert_precision<double, float>(const SpinorField<float>&);
template SpinorField<double> convert_precision<double, double>(const SpinorField<double>&);
template SpinorField<float> convert_precision<float, float>(const SpinorField<float>&);
template double relative_difference<float, float>(const SpinorField<float>&, const SpinorField<float>&);
template double relative_difference<float, double>(const SpinorField<float>&, const SpinorField<double>&);
template double relative_difference<double, float>(const SpinorField<double>&, const SpinorField<float>&);
template double relative_difference<double, double>(const SpinorField<double>&, const SpinorField<double>&);
template GaugeField<float> convert_precision<float, double>(const GaugeField<double>&);
template GaugeField<double> convert_precision<double, float>(const GaugeField<float>&);
template GaugeField<double> convert_precision<double, double>(const GaugeField<double>&);
template GaugeField<float> convert_precision<float, float>(const GaugeField<float>&);

}  // namespace dslash
