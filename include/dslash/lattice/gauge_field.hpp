#pragma once
// GaugeField<Real>: U_mu(site)[a][b], the link from site to site + mu-hat, on every site of the
// lattice. Storage: View (volume, 4, 3, 3), LayoutRight (the NERSC file order).
#include <complex>
#include <cstdint>
#include <string>

#include "dslash/core/view.hpp"
#include "dslash/lattice/geometry.hpp"
#include "dslash/lattice/su3.hpp"

namespace dslash {

template <class Real>
class GaugeField {
 public:
  using real_type = Real;
  using complex_type = std::complex<Real>;
  using view_type = View<complex_type, 4>;

  explicit GaugeField(const Geometry& geom, std::string label = "gauge") : geom_(geom) {
    check_memory_fits(bytes_for(geom), label);
    data_ = view_type(std::move(label), static_cast<std::size_t>(geom.volume()), 4, 3, 3);
  }

  const Geometry& geometry() const { return geom_; }
  const view_type& view() const { return data_; }
  complex_type* data() const { return data_.data(); }

  complex_type& operator()(site_t s, int mu, int a, int b) const { return data_(s, mu, a, b); }

  ColourMatrix<Real> link(site_t s, int mu) const {
    ColourMatrix<Real> u;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) u(a, b) = data_(s, mu, a, b);
    return u;
  }
  void set_link(site_t s, int mu, const ColourMatrix<Real>& u) const {
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) data_(s, mu, a, b) = u(a, b);
  }

  static std::uint64_t bytes_for(const Geometry& g) {
    return static_cast<std::uint64_t>(g.volume()) * 36u * sizeof(complex_type);
  }

 private:
  Geometry geom_;
  view_type data_;
};

}  // namespace dslash
