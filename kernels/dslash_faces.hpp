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
//     domain below sends h = U_mu(y)^dagger P_bwd psi(y) for its upper face; we add R_bwd(h).
//
// A half spinor is 2 spins x 3 colours, 12 reals, in the kernel's precision: half the bytes of a
// spinor. Buffer order: face sites (those of the field's parity, lexicographic in the three other
// coordinates, so both sides of a face list the same sites in the same order), then right-hand
// sides, then the 12 reals.
#include <array>
#include <cstdint>
#include <vector>

#include "dslash/lattice/gauge_field.hpp"
#include "kernels/dslash_kernel.hpp"

namespace dslash {

enum class Hop { Forward, Backward };

template <class Real>
class DslashFaces {
 public:
  static constexpr int kHalfSpinorReals = 12;

  // u: the domain's gauge field, the one the kernel was built from.
  DslashFaces(const DslashKernel<Real>& kernel, const GaugeField<Real>& u);

  index_t face_sites(int mu) const { return static_cast<index_t>(send_[static_cast<std::size_t>(mu)][0].size()); }
  // Reals in one face's buffer: face sites x right-hand sides x 12.
  std::size_t halo_reals(int mu) const { return static_cast<std::size_t>(face_sites(mu)) * nrhs_ * kHalfSpinorReals; }

  // The half spinors this domain sends for its neighbours' `hop` in direction mu, from the packed
  // input: Forward -> to the domain below (our lower face), Backward -> to the domain above.
  void project(int mu, Hop hop, const View<Real, 1>& in, Real* half) const;
  // Adds the `hop` contributions that the neighbour's half spinors make to the packed output.
  void complete(int mu, Hop hop, const Real* half, const View<Real, 1>& out) const;

 private:
  struct FaceSite {
    index_t base;  // offset of real 0 of right-hand side 0 in the kernel's spinor buffers
    site_t site;   // lattice site in the domain, for its links
  };
  // [mu][hop]: the sites we send from (input parity) and the sites we complete (output parity), in
  // message order, and the order to visit them in: by memory address, so the lanes of one vnode
  // vector are visited together and its cache lines are loaded once, not once per lane.
  std::array<std::array<std::vector<FaceSite>, 2>, 4> send_, receive_;
  std::array<std::array<std::vector<index_t>, 2>, 4> send_order_, receive_order_;
  static std::vector<index_t> memory_order(const std::vector<FaceSite>& sites);
  std::vector<FaceSite> face(int mu, int x_mu, Subset subset) const;
  std::vector<index_t> rhs_offset_;  // offset of right-hand side r from its site's base
  index_t component_stride_;         // between reals c and c + 1 of one right-hand side

  DslashConfig cfg_;
  KernelLayout layout_;
  KernelLayout::Strides strides_;
  Geometry geom_;
  GaugeField<Real> u_;
  int nrhs_;
};

}  // namespace dslash
