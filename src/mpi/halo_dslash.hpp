#pragma once
// HaloDslash<Real>: a DslashKernel on this rank's block of the lattice, with the hops that cross
// to a neighbouring rank exchanged as spin-projected half spinors (kernels/dslash_faces.hpp).
// One apply, with comms/compute overlap:
//   project faces -> post MPI_Irecv / MPI_Isend -> interior kernel (all sites, leaving the remote
//   hops out, in slabs of t with MPI_Testall between them) -> MPI_Waitall -> complete the boundary
//   sites from the received half spinors
// Without overlap the interior kernel waits until the halos have arrived.
#include <cstdint>
#include <vector>

#include "kernels/dslash_faces.hpp"
#include "kernels/dslash_kernel.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Seconds this rank spent in each phase, summed over the calls since reset.
struct HaloTimes {
  double project = 0, interior = 0, wait = 0, complete = 0;
  int calls = 0;
  double comm() const { return project + wait; }          // making and waiting for halos
  double compute() const { return interior + complete; }  // the operator itself
};

template <class Real>
class HaloDslash {
 public:
  // Collective. cfg.halo is set from the grid's split directions. A configuration the kernel cannot
  // take on the local lattice (vnode folding, nrhs) is a CollectiveError naming the local lattice.
  HaloDslash(const ProcessGrid& grid, const GaugeField<Real>& local_u, DslashConfig cfg);

  const DslashKernel<Real>& kernel() const { return kernel_; }
  Subset in_subset() const { return kernel_.in_subset(); }

  // Collective. in/out: buffers from kernel().allocate_spinors().
  void apply(const View<Real, 1>& in, const View<Real, 1>& out, bool overlap);
  // Collective. Local fields in, local fields out (pack, apply, unpack).
  std::vector<SpinorField<Real>> apply(const std::vector<SpinorField<Real>>& in, bool overlap = true);
  // Collective. Only the halo exchange of an apply (project, send, receive): for halo bandwidth.
  void exchange(const View<Real, 1>& in);

  // Bytes this rank sends per apply: 12 reals x face sites x nrhs, for each face of each split direction.
  std::uint64_t halo_bytes() const { return halo_bytes_; }
  const HaloTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

 private:
  void start_exchange(const View<Real, 1>& in);
  void finish_exchange();
  void complete(const View<Real, 1>& out);

  // The interior goes in slabs of outer t with an MPI_Testall after each: at least kMinSlabs, and
  // more for long calls (mrhs), about one per kSlabWork vectors x blocks of output.
  static constexpr index_t kMinSlabs = 4, kSlabWork = 1024;
  index_t progress_slabs() const;
  const ProcessGrid& grid_;
  DslashKernel<Real> kernel_;
  DslashFaces<Real> faces_;
  // [mu][hop]: what we send for the neighbours' hops, and what they send for ours.
  std::array<std::array<std::vector<Real>, 2>, 4> send_, receive_;
  std::vector<MPI_Request> requests_;
  std::uint64_t halo_bytes_ = 0;
  HaloTimes times_;
};

}  // namespace dslash::mpi
