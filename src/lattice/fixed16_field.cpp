#include "dslash/lattice/fixed16_field.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "dslash/core/parallel.hpp"
#include "simd/fixed16.hpp"

namespace dslash {

Fixed16SpinorField::Fixed16SpinorField(const Geometry& geom, Subset subset, std::string label) : geom_(geom), subset_(subset) {
  check_memory_fits(bytes_for(geom, subset), label);
  const auto n = static_cast<std::size_t>(sites());
  codes_ = View<std::int16_t, 2>(label + "_codes", n, kRealsPerSite);
  norms_ = View<float, 1>(label + "_norms", n);
}

Fixed16GaugeField::Fixed16GaugeField(const Geometry& geom, std::string label) : geom_(geom) {
  check_memory_fits(bytes_for(geom), label);
  codes_ = View<std::int16_t, 3>(std::move(label), static_cast<std::size_t>(geom.volume()), 4, kRealsPerLink);
}

namespace {
void check_same_sites(site_t a, site_t b, Subset sa, Subset sb, const char* what) {
  if (a != b || sa != sb) throw std::invalid_argument(std::string(what) + ": the fields hold different site sets");
}
}  // namespace

template <class Real>
void encode_fixed16(const SpinorField<Real>& from, Fixed16SpinorField& to) {
  check_same_sites(from.sites(), to.sites(), from.subset(), to.subset(), "encode_fixed16");
  const Real* in = reinterpret_cast<const Real*>(from.data());
  std::int16_t* codes = to.codes().data();
  float* norms = to.norms().data();
  constexpr int R = Fixed16SpinorField::kRealsPerSite;
  parallel_for("encode_fixed16_spinor", RangePolicy<>(from.sites()), [=](index_t s) {
    float max_abs = 0;
    for (int k = 0; k < R; ++k) max_abs = std::max(max_abs, std::fabs(static_cast<float>(in[s * R + k])));
    const float norm = fixed16::site_norm(max_abs), scale = fixed16::store_scale(norm);
    norms[s] = norm;
    for (int k = 0; k < R; ++k) codes[s * R + k] = fixed16::to_code(static_cast<float>(in[s * R + k]), scale);
  });
}

template <class Real>
void decode_fixed16(const Fixed16SpinorField& from, SpinorField<Real>& to) {
  check_same_sites(from.sites(), to.sites(), from.subset(), to.subset(), "decode_fixed16");
  const std::int16_t* codes = from.codes().data();
  const float* norms = from.norms().data();
  Real* out = reinterpret_cast<Real*>(to.data());
  constexpr int R = Fixed16SpinorField::kRealsPerSite;
  parallel_for("decode_fixed16_spinor", RangePolicy<>(from.sites()), [=](index_t s) {
    const float scale = fixed16::load_scale(norms[s]);
    for (int k = 0; k < R; ++k) out[s * R + k] = fixed16::to_float(codes[s * R + k], scale);
  });
}

template <class Real>
void encode_fixed16(const GaugeField<Real>& from, Fixed16GaugeField& to) {
  if (from.geometry().volume() != to.geometry().volume()) throw std::invalid_argument("encode_fixed16: the gauge fields have different volumes");
  const Real* in = reinterpret_cast<const Real*>(from.data());
  std::int16_t* codes = to.codes().data();
  const index_t n = from.geometry().volume() * 4 * Fixed16GaugeField::kRealsPerLink;
  constexpr float kLimit = fixed16::kLinkNorm + 0x1p-16f;
  double clipped = 0;
  parallel_reduce("check_fixed16_gauge", RangePolicy<>(n), [=](index_t i, double& acc) { acc += std::fabs(static_cast<float>(in[i])) > kLimit ? 1 : 0; }, clipped);
  if (clipped > 0) {
    index_t i = 0;
    while (!(std::fabs(static_cast<float>(in[i])) > kLimit)) ++i;
    const index_t link = i / Fixed16GaugeField::kRealsPerLink;
    std::ostringstream msg;
    msg << "encode_fixed16: the link at site " << link / 4 << ", direction " << link % 4 << " has an entry part " << in[i]
        << " beyond [-1, 1]: half precision stores SU(3) links";
    throw std::invalid_argument(msg.str());
  }
  const float scale = fixed16::store_scale(fixed16::kLinkNorm);
  parallel_for("encode_fixed16_gauge", RangePolicy<>(n), [=](index_t i) { codes[i] = fixed16::to_code(static_cast<float>(in[i]), scale); });
}

template <class Real>
void decode_fixed16(const Fixed16GaugeField& from, GaugeField<Real>& to) {
  if (from.geometry().volume() != to.geometry().volume()) throw std::invalid_argument("decode_fixed16: the gauge fields have different volumes");
  const std::int16_t* codes = from.codes().data();
  Real* out = reinterpret_cast<Real*>(to.data());
  const index_t n = from.geometry().volume() * 4 * Fixed16GaugeField::kRealsPerLink;
  const float scale = fixed16::load_scale(fixed16::kLinkNorm);
  parallel_for("decode_fixed16_gauge", RangePolicy<>(n), [=](index_t i) { out[i] = fixed16::to_float(codes[i], scale); });
}

#define DSLASH_INSTANTIATE_FIXED16(R)                                                   \
  template void encode_fixed16<R>(const SpinorField<R>&, Fixed16SpinorField&);          \
  template void decode_fixed16<R>(const Fixed16SpinorField&, SpinorField<R>&);          \
  template void encode_fixed16<R>(const GaugeField<R>&, Fixed16GaugeField&);            \
  template void decode_fixed16<R>(const Fixed16GaugeField&, GaugeField<R>&);
DSLASH_INSTANTIATE_FIXED16(float)
DSLASH_INSTANTIATE_FIXED16(double)
#undef DSLASH_INSTANTIATE_FIXED16

}  // namespace dslash
