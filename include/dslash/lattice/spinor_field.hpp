#pragma once
// SpinorField<Real>: psi(site)[spin][colour], on the full lattice (storage index = lexicographic
// site) or on one checkerboard (storage index = cb = site / 2). Storage: View (sites, 4, 3),
// LayoutRight, so each site's 12 complex numbers are contiguous.
#include <complex>
#include <cstdint>
#include <string>

#include "dslash/core/view.hpp"
#include "dslash/lattice/geometry.hpp"

namespace dslash {

template <class Real>
class SpinorField {
 public:
  using real_type = Real;
  using complex_type = std::complex<Real>;
  using view_type = View<complex_type, 3>;
  static constexpr int kSpins = 4, kColours = 3, kRealsPerSite = 24;

  SpinorField(const Geometry& geom, Subset subset, std::string label = "spinor")
      : geom_(geom), subset_(subset) {
    check_memory_fits(bytes_for(geom, subset), label);
    data_ = view_type(std::move(label), static_cast<std::size_t>(sites_for(geom, subset)), 4, 3);
  }

  const Geometry& geometry() const { return geom_; }
  Subset subset() const { return subset_; }
  site_t sites() const { return sites_for(geom_, subset_); }
  const view_type& view() const { return data_; }
  complex_type* data() const { return data_.data(); }

  complex_type& operator()(site_t i, int spin, int colour) const { return data_(i, spin, colour); }

  // The lattice site that storage index i holds.
  site_t lattice_site(site_t i) const {
    return subset_ == Subset::Full ? i : geom_.site_from_cb(i, static_cast<Parity>(subset_));
  }

  static site_t sites_for(const Geometry& g, Subset s) { return s == Subset::Full ? g.volume() : g.half_volume(); }
  static std::uint64_t bytes_for(const Geometry& g, Subset s) {
    return static_cast<std::uint64_t>(sites_for(g, s)) * 12u * sizeof(complex_type);
  }

 private:
  Geometry geom_;
  Subset subset_;
  view_type data_;
};

}  // namespace dslash
