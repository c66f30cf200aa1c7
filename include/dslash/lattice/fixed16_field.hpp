#pragma once
// Half precision fields (docs/CONVENTIONS.md, "Half precision storage"): a spinor or gauge field
// held in 16-bit fixed point (simd/fixed16.hpp), the storage the half kernels read and
// write. Files stay single or double: a half field is encoded from a float or double field and
// decoded back into one, the arithmetic in single precision.
#include <cstdint>
#include <string>

#include "dslash/core/view.hpp"
#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/geometry.hpp"
#include "dslash/lattice/spinor_field.hpp"

namespace dslash {

// A site's 24 reals in SpinorField order (spin, colour, re/im) as codes, and the site's norm, the
// largest |real| of the site: 52 bytes a site against single's 96.
class Fixed16SpinorField {
 public:
  static constexpr int kRealsPerSite = 24;

  Fixed16SpinorField(const Geometry& geom, Subset subset, std::string label = "spinor16");

  const Geometry& geometry() const { return geom_; }
  Subset subset() const { return subset_; }
  site_t sites() const { return SpinorField<float>::sites_for(geom_, subset_); }
  const View<std::int16_t, 2>& codes() const { return codes_; }  // (sites, 24)
  const View<float, 1>& norms() const { return norms_; }          // (sites)

  static std::uint64_t bytes_for(const Geometry& g, Subset s) {
    return static_cast<std::uint64_t>(SpinorField<float>::sites_for(g, s)) * (kRealsPerSite * sizeof(std::int16_t) + sizeof(float));
  }

 private:
  Geometry geom_;
  Subset subset_;
  View<std::int16_t, 2> codes_;
  View<float, 1> norms_;
};

// The 18 reals of each link in GaugeField order, with the fixed norm fixed16::kLinkNorm (SU(3)
// entries lie in [-1, 1]): 144 bytes a site against single's 288.
class Fixed16GaugeField {
 public:
  static constexpr int kRealsPerLink = 18;

  explicit Fixed16GaugeField(const Geometry& geom, std::string label = "gauge16");

  const Geometry& geometry() const { return geom_; }
  const View<std::int16_t, 3>& codes() const { return codes_; }  // (volume, 4, 18)

  static std::uint64_t bytes_for(const Geometry& g) {
    return static_cast<std::uint64_t>(g.volume()) * 4u * kRealsPerLink * sizeof(std::int16_t);
  }

 private:
  Geometry geom_;
  View<std::int16_t, 3> codes_;
};

// Encoding rounds each real to float, then to the nearest code (ties to even). Per real of a site
// with norm n, |decoded - x| <= n * 2^-15 (half a code, n / 65534, plus the float roundings); a
// site whose norm is below fixed16::kNormMin decodes as zeros. Fields must hold the same sites.
template <class Real> void encode_fixed16(const SpinorField<Real>& from, Fixed16SpinorField& to);
template <class Real> void decode_fixed16(const Fixed16SpinorField& from, SpinorField<Real>& to);
// Throws std::invalid_argument, naming the first such link, where an entry's real or imaginary
// part exceeds 1 by more than 2^-16 (not a unitary link: the codes would clip it).
template <class Real> void encode_fixed16(const GaugeField<Real>& from, Fixed16GaugeField& to);
template <class Real> void decode_fixed16(const Fixed16GaugeField& from, GaugeField<Real>& to);

}  // namespace dslash
