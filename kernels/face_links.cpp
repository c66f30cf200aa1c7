#include "kernels/face_links.hpp"

#include <stdexcept>
#include <string>

namespace dslash {

std::size_t face_site_index(const Coord& extents, int mu, const Coord& x) {
  std::size_t i = 0;
  for (int nu = 3; nu >= 0; --nu)
    if (nu != mu) i = i * static_cast<std::size_t>(extents[static_cast<std::size_t>(nu)]) + static_cast<std::size_t>(x[static_cast<std::size_t>(nu)]);
  return i;
}

namespace {
std::size_t face_sites(const Coord& extents, std::size_t mu) {
  std::size_t n = 1;
  for (std::size_t nu = 0; nu < 4; ++nu)
    if (nu != mu) n *= static_cast<std::size_t>(extents[nu]);
  return n;
}
}  // namespace

template <class Real>
FaceLinks<Real> upper_face_links(const GaugeField<Real>& u, const std::array<bool, 4>& split) {
  const Geometry& g = u.geometry();
  FaceLinks<Real> links;
  for (int mu = 0; mu < 4; ++mu) {
    const auto m = static_cast<std::size_t>(mu);
    if (!split[m]) continue;
    links[m].resize(face_sites(g.extents(), m));
    for (site_t s = 0; s < g.volume(); ++s)
      if (const Coord x = g.coords(s); x[m] == g.extents()[m] - 1) links[m][face_site_index(g.extents(), mu, x)] = u.link(s, mu);
  }
  return links;
}

template <class Real>
void check_face_links(const FaceLinks<Real>& below, const Coord& extents, const std::array<bool, 4>& split, const char* who) {
  for (std::size_t mu = 0; mu < 4; ++mu)
    if (split[mu] && below[mu].size() != face_sites(extents, mu))
      throw std::invalid_argument(std::string(who) + ": the links from the domain below do not fill face " + std::to_string(mu) + " (" +
                                  std::to_string(below[mu].size()) + " of " + std::to_string(face_sites(extents, mu)) + " sites)");
}

template FaceLinks<float> upper_face_links(const GaugeField<float>&, const std::array<bool, 4>&);
template FaceLinks<double> upper_face_links(const GaugeField<double>&, const std::array<bool, 4>&);
template void check_face_links(const FaceLinks<float>&, const Coord&, const std::array<bool, 4>&, const char*);
template void check_face_links(const FaceLinks<double>&, const Coord&, const std::array<bool, 4>&, const char*);

}  // namespace dslash
