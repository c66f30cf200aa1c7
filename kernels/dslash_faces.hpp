#pragma once
// DslashFaces<Real>: the hops that leave a domain, for a DslashKernel built with cfg.halo[mu] set
// (the kernel leaves those hops out). Knows nothing of MPI: it fills and drains plain buffers of
// half spinors, and the caller moves them between domains (src/mpi/halo_dslash.hpp).
//
//   domain below        |  this domain  |        domain above
//   ... y_mu = L-1  ----+->  x_mu = 0 ... x_mu = L-1  ----+->  y_mu = 0 ...
//
//   Forward hop of our upper face, x -> x + mu: psi lives above. The domain above sends
//     h = P_fwd psi(y) for its lower face (y_mu = 0); we add R_fwd(U_mu(x) h).
//   Backward hop of our lower face, x -> x - mu: psi and the link U_mu(x - mu) live below. The
//     domain below sends h = P_bwd psi(y) for its upper face; we add R_bwd(U_mu(y)^dagger h), with
//     the links of its upper face handed over once (kernels/face_links.hpp), so the sender's
//     projection reads no links.
//
// A half spinor is 2 spins x 3 colours, 12 reals, in the kernel's precision: half the bytes of a
// spinor. The work runs on the kernel's own SIMD vectors (kernels/face_body.hpp), so the message
// is in the kernel's lane order: face vectors (lexicographic in the three other outer coordinates,
// so both sides of a face list them in the same order), then right-hand-side blocks, then 6
// complex numbers, each as the real then the imaginary parts of the vector's face lanes. Every
// domain holds the same local lattice and kernel, so sender and receiver agree on it.
//
// Space = CudaSpace: the kernel's GPU twin. The face lists and links live in device memory, the
// message pointers are device pointers, and project / complete launch asynchronously on the
// calling thread's current stream (cuda::StreamScope).
#include <array>
#include <cstdint>
#include <vector>

#include "dslash/lattice/gauge_field.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/face_links.hpp"

namespace dslash {

enum class Hop { Forward, Backward };

template <class Real, class Space = HostSpace>
class DslashFaces {
 public:
  static constexpr int kHalfSpinorReals = 12;
  using spinor_view = typename DslashKernel<Real, Space>::spinor_view;

  // u: the domain's gauge field, the one the kernel was built from (the backward hops' links from
  // the domain below: the kernel's links_below()).
  DslashFaces(const DslashKernel<Real, Space>& kernel, const GaugeField<Real>& u);

  // Lattice sites on one face of direction mu (0 where mu is not split).
  index_t face_sites(int mu) const { return face_sites_[static_cast<std::size_t>(mu)]; }
  // Reals in one face's message: face sites x right-hand sides x 12.
  std::size_t halo_reals(int mu) const { return static_cast<std::size_t>(face_sites(mu)) * nrhs_ * kHalfSpinorReals; }

  // The half spinors this domain sends for its neighbours' `hop` in direction mu, from the packed
  // input: Forward -> to the domain below (our lower face), Backward -> to the domain above.
  void project(int mu, Hop hop, const spinor_view& in, Real* half) const;
  // Adds the `hop` contributions that the neighbour's half spinors make to the packed output.
  void complete(int mu, Hop hop, const Real* half, const spinor_view& out) const;
  // Both hops of direction mu, in one launch where it can (the faces are short, latency-bound
  // launches): project always; complete where the two faces are different vectors (an outer extent
  // of 2 or more in mu), else one launch a hop.
  void project_both(int mu, const spinor_view& in, Real* forward_half, Real* backward_half) const;
  // Every split direction's projections in one launch: halves[mu][0] forward, [mu][1] backward (as
  // project_both), each face vector read once, however many faces it lies on. CPU only: the GPU
  // projects a direction a launch.
  void project_all(const spinor_view& in, const std::array<std::array<Real*, 2>, 4>& halves) const;
  void complete_both(int mu, const Real* forward_half, const Real* backward_half, const spinor_view& out) const;
  // The same, finishing the operator's last pass on every vector it completes (FaceXpay): out there
  // becomes a x + b (what the kernel left + the halo's hops), with its norm (and, where xpay.w and
  // xpay.w2 are set, its inner products) over those vectors left in memory. Each vector must be
  // completed once: mu the only split direction, both faces of it distinct (outer extent >= 2); the
  // GPU only. Throws std::invalid_argument elsewhere.
  void complete_both(int mu, const Real* forward_half, const Real* backward_half, const spinor_view& out, const FaceXpay<Real>& xpay) const;
  // The received messages ([mu][0] forward, [mu][1] backward; complete's arguments) as the kernel
  // reads them itself (DslashKernel::apply with a ReceivedHalo): instead of apply then complete,
  // once the halo is in before the kernel runs. Host only.
  ReceivedHalo<Real> received(const std::array<std::array<const Real*, 2>, 4>& messages) const;

 private:
  // One side of a face: its vectors (offsets of their block 0 in the spinor buffers) in message
  // order, and, where the hop needs one (the receiving side), a link per vector in the kernel's
  // link layout.
  struct Face {
    View<index_t, 1, LayoutRight, Space> vectors;
    View<Real, 1, LayoutRight, Space> links;
    std::vector<index_t> sites;  // host: each vector's output site index (DslashBody's i)
  };
  enum class FaceLink { None, U, UDaggerBelow };  // U_mu(x), or U_mu(x - mu)^dagger from `below`
  Face face(int mu, bool upper, Subset subset, const GaugeField<Real>& u, const FaceLinks<Real>& below, FaceLink link) const;
  FaceArgs<Real> args(int mu, Hop hop, const Face& f, const spinor_view& spinors) const;
  FaceArgs<Real> project_args(int mu, Hop hop, const spinor_view& in, Real* half) const;
  FaceArgs<Real> complete_args(int mu, Hop hop, const Real* half, const spinor_view& out) const;

  // [mu][hop]: the vectors we send from (input parity) and those we complete (output parity).
  std::array<std::array<Face, 2>, 4> send_, receive_;
  // project_all's work: every vector of a send face once, in memory order, with its place in each
  // face ([2 mu + hop]) or -1. Host only.
  std::vector<std::array<std::int32_t, 8>> send_items_;
  // [mu][output site index]: the site's place in mu's receiving faces (both list their vectors in
  // the same order), or -1.
  std::array<View<std::int32_t, 1, LayoutRight, Space>, 4> slots_;
  std::array<index_t, 4> face_sites_{};
  DslashConfig cfg_;
  KernelLayout layout_;
  KernelLayout::Strides strides_;
  std::size_t spinor_reals_;
  FaceRunner<Real> runner_;
  FacesProjectRunner<Real> project_all_runner_;
  int nrhs_;
};

}  // namespace dslash
