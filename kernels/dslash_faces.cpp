#include "kernels/dslash_faces.hpp"

#include <algorithm>
#include <complex>
#include <numeric>
#include <stdexcept>

#include "dslash/core.hpp"
#include "kernels/spin_projector.hpp"

namespace dslash {

namespace {

using kernels::kProjector;
using kernels::projector_sign;

// The unit k of kernels/spin_projector.hpp: 1, -1, 2 = +i, -2 = -i.
template <class Real>
std::complex<Real> unit(int k) {
  return k == 1 ? std::complex<Real>(1, 0) : k == -1 ? std::complex<Real>(-1, 0) : k == 2 ? std::complex<Real>(0, 1) : std::complex<Real>(0, -1);
}

}  // namespace

template <class Real>
DslashFaces<Real>::DslashFaces(const DslashKernel<Real>& kernel, const GaugeField<Real>& u)
    : cfg_(kernel.config()), layout_(kernel.layout()), strides_(kernel.spinor_strides()), geom_(kernel.geometry()), u_(u),
      nrhs_(kernel.config().nrhs) {
  if (!(u.geometry() == geom_)) throw std::invalid_argument("DslashFaces: the gauge field is not on the kernel's lattice");
  // vnode: the lanes are virtual nodes (in the site's base), one block per right-hand side; naive
  // and mrhs: the lanes are right-hand sides.
  const int W = layout_.lanes;
  for (int r = 0; r < nrhs_; ++r)
    rhs_offset_.push_back(layout_.folded ? strides_.offset(0, r, 0) * W : strides_.offset(0, r / W, 0) * W + r % W);
  component_stride_ = strides_.component * W;
  const Subset in = kernel.in_subset(), out = kernel.out_subset();
  for (int mu = 0; mu < 4; ++mu) {
    if (!cfg_.halo[static_cast<std::size_t>(mu)]) continue;
    const int top = geom_.extent(mu) - 1;
    auto& send = send_[static_cast<std::size_t>(mu)];
    auto& receive = receive_[static_cast<std::size_t>(mu)];
    send[static_cast<int>(Hop::Forward)] = face(mu, 0, in);
    send[static_cast<int>(Hop::Backward)] = face(mu, top, in);
    receive[static_cast<int>(Hop::Forward)] = face(mu, top, out);
    receive[static_cast<int>(Hop::Backward)] = face(mu, 0, out);
    for (int h = 0; h < 2; ++h) {
      send_order_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)] = memory_order(send[static_cast<std::size_t>(h)]);
      receive_order_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)] = memory_order(receive[static_cast<std::size_t>(h)]);
    }
  }
}

template <class Real>
std::vector<index_t> DslashFaces<Real>::memory_order(const std::vector<FaceSite>& sites) {
  std::vector<index_t> order(sites.size());
  std::iota(order.begin(), order.end(), index_t{0});
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) {
    return sites[static_cast<std::size_t>(a)].base < sites[static_cast<std::size_t>(b)].base;
  });
  return order;
}

template <class Real>
std::vector<typename DslashFaces<Real>::FaceSite> DslashFaces<Real>::face(int mu, int x_mu, Subset subset) const {
  // The three other directions, slowest last, so the order is lexicographic with mu left out.
  std::array<int, 3> other{};
  for (int nu = 0, k = 0; nu < 4; ++nu)
    if (nu != mu) other[static_cast<std::size_t>(k++)] = nu;
  const Geometry outer_geom = layout_.outer_geometry();
  std::vector<FaceSite> sites;
  Coord x{};
  x[static_cast<std::size_t>(mu)] = x_mu;
  const auto L = [&](int k) { return geom_.extent(other[static_cast<std::size_t>(k)]); };
  for (int c = 0; c < L(2); ++c)
    for (int b = 0; b < L(1); ++b)
      for (int a = 0; a < L(0); ++a) {
        x[static_cast<std::size_t>(other[0])] = a;
        x[static_cast<std::size_t>(other[1])] = b;
        x[static_cast<std::size_t>(other[2])] = c;
        if (subset != Subset::Full && Geometry::parity(x) != static_cast<int>(subset)) continue;
        // Invert KernelLayout::global_coords: outer coordinates and the virtual node's lane.
        Coord xo = x;
        int lane = 0;
        for (std::size_t nu = 0; nu < 4; ++nu)
          if (layout_.lane_bit[nu] >= 0) {
            lane |= (x[nu] / layout_.outer[nu]) << layout_.lane_bit[nu];
            xo[nu] = x[nu] % layout_.outer[nu];
          }
        const site_t so = outer_geom.site(xo);
        const index_t outer = subset == Subset::Full ? so : Geometry::cb_index(so);
        sites.push_back({strides_.offset(outer, 0, 0) * layout_.lanes + lane, geom_.site(x)});
      }
  return sites;
}

template <class Real>
void DslashFaces<Real>::project(int mu, Hop hop, const View<Real, 1>& in, Real* half) const {
  const std::vector<FaceSite>& sites = send_[static_cast<std::size_t>(mu)][static_cast<int>(hop)];
  const bool forward = hop == Hop::Forward;
  const int S = projector_sign(forward, cfg_.dagger);
  const kernels::Projector P = kProjector[mu];
  const std::complex<Real> k0 = unit<Real>(S * P.k0), k1 = unit<Real>(S * P.k1);
  const std::vector<index_t>& order = send_order_[static_cast<std::size_t>(mu)][static_cast<int>(hop)];
  const Real* psi = in.data();
  parallel_for("dslash_face_project", RangePolicy<>(static_cast<index_t>(sites.size())), [&](index_t visit) {
    const index_t i = order[static_cast<std::size_t>(visit)];  // the site's place in the message
    const FaceSite& f = sites[static_cast<std::size_t>(i)];
    // The receiver of a backward hop does not hold U_mu(y): send U_mu(y)^dagger h.
    const ColourMatrix<Real> u_dagger = forward ? ColourMatrix<Real>{} : adjoint(u_.link(f.site, mu));
    for (int r = 0; r < nrhs_; ++r) {
      const Real* p = psi + f.base + rhs_offset_[static_cast<std::size_t>(r)];
      const auto load = [&](int spin, int c) {
        const index_t k = 2 * (3 * spin + c);
        return std::complex<Real>(p[k * component_stride_], p[(k + 1) * component_stride_]);
      };
      ColourVector<Real> h[2];
      for (int c = 0; c < 3; ++c) {
        h[0][static_cast<std::size_t>(c)] = load(0, c) + k0 * load(P.a0, c);
        h[1][static_cast<std::size_t>(c)] = load(1, c) + k1 * load(P.a1, c);
      }
      Real* dst = half + (i * nrhs_ + r) * kHalfSpinorReals;
      for (int s = 0; s < 2; ++s) {
        const ColourVector<Real> z = forward ? h[s] : u_dagger * h[s];
        for (int a = 0; a < 3; ++a) {
          dst[2 * (3 * s + a)] = z[static_cast<std::size_t>(a)].real();
          dst[2 * (3 * s + a) + 1] = z[static_cast<std::size_t>(a)].imag();
        }
      }
    }
  });
}

template <class Real>
void DslashFaces<Real>::complete(int mu, Hop hop, const Real* half, const View<Real, 1>& out) const {
  const std::vector<FaceSite>& sites = receive_[static_cast<std::size_t>(mu)][static_cast<int>(hop)];
  const bool forward = hop == Hop::Forward;
  const int S = projector_sign(forward, cfg_.dagger);
  const kernels::Projector P = kProjector[mu];
  const std::complex<Real> k2 = unit<Real>(S * P.k2), k3 = unit<Real>(S * P.k3);
  const std::vector<index_t>& order = receive_order_[static_cast<std::size_t>(mu)][static_cast<int>(hop)];
  Real* chi = out.data();
  parallel_for("dslash_face_complete", RangePolicy<>(static_cast<index_t>(sites.size())), [&](index_t visit) {
    const index_t i = order[static_cast<std::size_t>(visit)];
    const FaceSite& f = sites[static_cast<std::size_t>(i)];
    const ColourMatrix<Real> u = forward ? u_.link(f.site, mu) : ColourMatrix<Real>{};
    for (int r = 0; r < nrhs_; ++r) {
      const Real* src = half + (i * nrhs_ + r) * kHalfSpinorReals;
      ColourVector<Real> h[2];
      for (int s = 0; s < 2; ++s) {
        for (int a = 0; a < 3; ++a) h[s][static_cast<std::size_t>(a)] = {src[2 * (3 * s + a)], src[2 * (3 * s + a) + 1]};
        if (forward) h[s] = u * h[s];  // U_mu(x) h: the sender left the link to us
      }
      Real* o = chi + f.base + rhs_offset_[static_cast<std::size_t>(r)];
      const auto add = [&](int spin, int c, std::complex<Real> z) {
        const index_t k = 2 * (3 * spin + c);
        o[k * component_stride_] += z.real();
        o[(k + 1) * component_stride_] += z.imag();
      };
      for (int c = 0; c < 3; ++c) {
        add(0, c, h[0][static_cast<std::size_t>(c)]);
        add(1, c, h[1][static_cast<std::size_t>(c)]);
        add(2, c, k2 * h[P.b2][static_cast<std::size_t>(c)]);
        add(3, c, k3 * h[P.b3][static_cast<std::size_t>(c)]);
      }
    }
  });
}

template class DslashFaces<float>;
template class DslashFaces<double>;

}  // namespace dslash
