#include "kernels/dslash_faces.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "dslash/core.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {

template <class Real, class Space>
DslashFaces<Real, Space>::DslashFaces(const DslashKernel<Real, Space>& kernel, const GaugeField<Real>& u)
    : cfg_(kernel.config()), layout_(kernel.layout()), strides_(kernel.spinor_strides()),
      spinor_reals_(static_cast<std::size_t>(kernel.spinor_bytes() / sizeof(Real))), runner_(kernel.face_runner()),
      project_all_runner_(kernel.project_all_runner()), nrhs_(kernel.rhs_slots()) {
  if (!(u.geometry() == kernel.geometry())) throw std::invalid_argument("DslashFaces: the gauge field is not on the kernel's lattice");
  const FaceLinks<Real>& below = kernel.links_below();
  const Subset in = kernel.in_subset(), out = kernel.out_subset();
  for (int mu = 0; mu < 4; ++mu) {
    const auto m = static_cast<std::size_t>(mu);
    if (!cfg_.halo[m]) continue;
    constexpr int fwd = static_cast<int>(Hop::Forward), bwd = static_cast<int>(Hop::Backward);
    // The receiver multiplies both hops: the projections are latency-bound launches before the
    // messages leave, the completion reads the links where the kernel streams (8 CPU ranks x 2).
    send_[m][fwd] = face(mu, false, in, u, below, FaceLink::None);
    send_[m][bwd] = face(mu, true, in, u, below, FaceLink::None);
    receive_[m][fwd] = face(mu, true, out, u, below, FaceLink::U);
    receive_[m][bwd] = face(mu, false, out, u, below, FaceLink::UDaggerBelow);
    if constexpr (Space::host_accessible) {
      slots_[m] = View<std::int32_t, 1, LayoutRight, Space>("dslash_face_slots", static_cast<std::size_t>(kernel.output_sites() / (layout_.folded ? layout_.lanes : 1)));
      deep_copy(slots_[m], std::int32_t{-1});
      for (const Face* f : {&receive_[m][fwd], &receive_[m][bwd]})
        for (std::size_t k = 0; k < f->sites.size(); ++k) slots_[m](static_cast<std::size_t>(f->sites[k])) = static_cast<std::int32_t>(k);
    }
    // Lanes of a face vector on the face: one right-hand side's site (naive, mrhs), all virtual
    // nodes, or, in a folded direction, the W/2 of one node.
    const index_t lanes = !layout_.folded ? 1 : layout_.lane_bit[m] >= 0 ? layout_.lanes / 2 : layout_.lanes;
    face_sites_[m] = static_cast<index_t>(send_[m][fwd].vectors.size()) * lanes;
  }
  if constexpr (Space::host_accessible) {
    // project_all's items: the send faces' vectors by site, which is memory order.
    std::map<index_t, std::array<std::int32_t, 8>> by_site;
    for (std::size_t m = 0; m < 4; ++m)
      for (std::size_t hop = 0; hop < 2; ++hop) {
        const Face& f = send_[m][hop];
        for (std::size_t k = 0; k < f.sites.size(); ++k) {
          auto [at, added] = by_site.try_emplace(f.sites[k]);
          if (added) at->second.fill(-1);
          at->second[2 * m + hop] = static_cast<std::int32_t>(k);
        }
      }
    for (const auto& [site, item] : by_site) send_items_.push_back(item);
  }
}

template <class Real, class Space>
typename DslashFaces<Real, Space>::Face DslashFaces<Real, Space>::face(int mu, bool upper, Subset subset, const GaugeField<Real>& u,
                                                                       const FaceLinks<Real>& below, FaceLink link) const {
  // Built on the host, then copied to where the kernels run.
  const auto to_space = [](const auto& host, const char* label) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    View<T, 1, LayoutRight, Space> v(label, host.size());
    if constexpr (Space::host_accessible) std::copy(host.begin(), host.end(), v.data());
    else Space::copy(v.data(), host.data(), host.size() * sizeof(T));
    return v;
  };
  // The three other directions, slowest last, so the order is lexicographic with mu left out.
  std::array<std::size_t, 3> other{};
  for (std::size_t nu = 0, k = 0; nu < 4; ++nu)
    if (static_cast<int>(nu) != mu) other[k++] = nu;
  const Geometry outer_geom = layout_.outer_geometry();
  Face f;
  std::vector<index_t> vectors;
  std::vector<Coord> coords;
  Coord xo{};
  xo[static_cast<std::size_t>(mu)] = upper ? layout_.outer[static_cast<std::size_t>(mu)] - 1 : 0;
  for (xo[other[2]] = 0; xo[other[2]] < layout_.outer[other[2]]; ++xo[other[2]])
    for (xo[other[1]] = 0; xo[other[1]] < layout_.outer[other[1]]; ++xo[other[1]])
      for (xo[other[0]] = 0; xo[other[0]] < layout_.outer[other[0]]; ++xo[other[0]]) {
        // Every lane of an outer site has its parity: the virtual nodes' extents are even.
        if (subset != Subset::Full && Geometry::parity(xo) != static_cast<int>(subset)) continue;
        const site_t so = outer_geom.site(xo);
        const index_t site = subset == Subset::Full ? so : Geometry::cb_index(so);
        vectors.push_back(strides_.offset(site, 0, 0) * layout_.lanes);
        f.sites.push_back(site);
        coords.push_back(xo);
      }
  f.vectors = to_space(vectors, "dslash_face_vectors");
  if (link == FaceLink::None) return f;
  // As the kernel's links: 9 complex, each as W lanes of real then W of imaginary parts (vnode; on
  // the GPU a lane's real and imaginary parts adjacent, pairs), or interleaved and broadcast by the
  // kernel (naive, mrhs).
  const int link_lanes = layout_.folded ? layout_.lanes : 1;
  std::vector<Real> L(coords.size() * 18 * static_cast<std::size_t>(link_lanes));
  const Geometry& geom = u.geometry();
  for (std::size_t i = 0; i < coords.size(); ++i)
    for (int lane = 0; lane < link_lanes; ++lane) {
      // Below: U_mu(x - mu) of the domain below, the same for the lanes off the face (never read).
      const Coord x = layout_.global_coords(coords[i], lane);
      const ColourMatrix<Real> w = link == FaceLink::U ? u.link(geom.site(x), mu)
                                                       : adjoint(below[static_cast<std::size_t>(mu)][face_site_index(geom.extents(), mu, x)]);
      for (int ab = 0; ab < 9; ++ab) {
        const std::size_t first = (i * 18 + 2 * static_cast<std::size_t>(ab)) * static_cast<std::size_t>(link_lanes), l = static_cast<std::size_t>(lane);
        const std::size_t re = strides_.pairs ? first + 2 * l : first + l, im = strides_.pairs ? re + 1 : re + static_cast<std::size_t>(link_lanes);
        L[re] = w(ab / 3, ab % 3).real();
        L[im] = w(ab / 3, ab % 3).imag();
      }
    }
  f.links = to_space(L, "dslash_face_links");
  return f;
}

template <class Real, class Space>
FaceArgs<Real> DslashFaces<Real, Space>::args(int mu, Hop hop, const Face& f, const spinor_view& spinors) const {
  if (spinors.size() != spinor_reals_) throw std::invalid_argument("DslashFaces: spinor buffer has the wrong size");
  FaceArgs<Real> a{};
  a.vectors = f.vectors.data();
  a.count = static_cast<index_t>(f.vectors.size());
  a.links = f.links.size() > 0 ? f.links.data() : nullptr;
  a.blocks = layout_.blocks;
  a.block_stride = strides_.block;
  a.component_stride = strides_.component;
  a.mu = mu;
  a.forward = hop == Hop::Forward;
  a.dagger = cfg_.dagger;
  return a;
}

template <class Real, class Space>
FaceArgs<Real> DslashFaces<Real, Space>::project_args(int mu, Hop hop, const spinor_view& in, Real* half) const {
  FaceArgs<Real> a = args(mu, hop, send_[static_cast<std::size_t>(mu)][static_cast<int>(hop)], in);
  a.in = in.data();
  a.message = half;
  a.complete = false;
  a.label = "dslash_face_project";
  return a;
}

template <class Real, class Space>
FaceArgs<Real> DslashFaces<Real, Space>::complete_args(int mu, Hop hop, const Real* half, const spinor_view& out) const {
  FaceArgs<Real> a = args(mu, hop, receive_[static_cast<std::size_t>(mu)][static_cast<int>(hop)], out);
  a.out = out.data();
  a.received = half;
  a.complete = true;
  a.label = "dslash_face_complete";
  return a;
}

template <class Real, class Space>
void DslashFaces<Real, Space>::project(int mu, Hop hop, const spinor_view& in, Real* half) const {
  runner_(project_args(mu, hop, in, half), nullptr);
}

template <class Real, class Space>
void DslashFaces<Real, Space>::complete(int mu, Hop hop, const Real* half, const spinor_view& out) const {
  runner_(complete_args(mu, hop, half, out), nullptr);
}

template <class Real, class Space>
void DslashFaces<Real, Space>::project_both(int mu, const spinor_view& in, Real* forward_half, Real* backward_half) const {
  const FaceArgs<Real> backward = project_args(mu, Hop::Backward, in, backward_half);
  runner_(project_args(mu, Hop::Forward, in, forward_half), &backward);
}

template <class Real, class Space>
void DslashFaces<Real, Space>::project_all(const spinor_view& in, const std::array<std::array<Real*, 2>, 4>& halves) const {
  if constexpr (!Space::host_accessible) throw std::invalid_argument("DslashFaces: the GPU projects a direction a launch (project_both)");
  FacesProjectArgs<Real> a;
  for (int mu = 0; mu < 4; ++mu)
    if (cfg_.halo[static_cast<std::size_t>(mu)])
      for (Hop hop : {Hop::Forward, Hop::Backward})
        a.faces[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)] = project_args(mu, hop, in, halves[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)]);
  a.items = send_items_.data();
  a.count = static_cast<index_t>(send_items_.size());
  a.dagger = cfg_.dagger;
  project_all_runner_(a);
}

template <class Real, class Space>
void DslashFaces<Real, Space>::complete_both(int mu, const Real* forward_half, const Real* backward_half, const spinor_view& out) const {
  const FaceArgs<Real> forward = complete_args(mu, Hop::Forward, forward_half, out), backward = complete_args(mu, Hop::Backward, backward_half, out);
  if (layout_.outer[static_cast<std::size_t>(mu)] >= 2) return runner_(forward, &backward);
  runner_(forward, nullptr);  // one vector holds both faces: the hops one after the other
  runner_(backward, nullptr);
}

template <class Real, class Space>
void DslashFaces<Real, Space>::complete_both(int mu, const Real* forward_half, const Real* backward_half, const spinor_view& out,
                                             const FaceXpay<Real>& xpay) const {
  const auto m = static_cast<std::size_t>(mu);
  const bool alone = std::count(cfg_.halo.begin(), cfg_.halo.end(), true) == 1 && cfg_.halo[m];
  const bool sums_kept = xpay.w != nullptr ? xpay.sums.device != nullptr : xpay.norm.device != nullptr;
  if (Space::host_accessible || !alone || layout_.outer[m] < 2 || xpay.x == nullptr || !sums_kept || (xpay.w == nullptr) != (xpay.w2 == nullptr))
    throw std::invalid_argument("DslashFaces: the xpay completion needs the GPU, direction " + std::to_string(mu) +
                                " the only split one with two faces apart, x, memory for its sums, and w and w2 together");
  FaceArgs<Real> forward = complete_args(mu, Hop::Forward, forward_half, out), backward = complete_args(mu, Hop::Backward, backward_half, out);
  forward.xpay = backward.xpay = xpay;
  forward.label = "dslash_face_complete_xpay";
  runner_(forward, &backward);
}

template <class Real, class Space>
ReceivedHalo<Real> DslashFaces<Real, Space>::received(const std::array<std::array<const Real*, 2>, 4>& messages) const {
  if constexpr (!Space::host_accessible) throw std::invalid_argument("DslashFaces: the GPU adds its halo with the face kernels");
  ReceivedHalo<Real> r;
  for (std::size_t mu = 0; mu < 4; ++mu) {
    if (!cfg_.halo[mu]) continue;
    for (int hop = 0; hop < 2; ++hop) {
      r.message[mu][static_cast<std::size_t>(hop)] = messages[mu][static_cast<std::size_t>(hop)];
      const auto& links = receive_[mu][static_cast<std::size_t>(hop)].links;
      r.links[mu][static_cast<std::size_t>(hop)] = links.size() > 0 ? links.data() : nullptr;
    }
    r.slot[mu] = slots_[mu].data();
    r.items[mu] = static_cast<index_t>(receive_[mu][0].vectors.size());
  }
  return r;
}

template class DslashFaces<float>;
template class DslashFaces<double>;
#if defined(DSLASH_HAVE_CUDA)
template class DslashFaces<float, CudaSpace>;
template class DslashFaces<double, CudaSpace>;
#endif

}  // namespace dslash
