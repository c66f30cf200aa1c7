#pragma once
// SharedSpinors<Real>: a CPU rank's spinor buffers in MPI-3 shared-memory windows of its node, so
// that its neighbours' kernels read their halo straight out of its input (ReceivedHalo::neighbour_in)
// and nobody projects or sends a face. The shared halo (mpi/shared_halo.hpp) already writes the
// messages into the neighbours' memory; this drops the messages themselves: the projection launch
// that read each face vector whole for half its lanes, and the kernel's read of the message back.
//   allocate   collective: every rank allocates its n-th buffer at once, each in its own window,
//              and maps its neighbours' n-th buffers (MPI_Win_shared_query): rank r's buffer n pairs
//              with its neighbours' buffer n, so a kernel given buffer n reads theirs
//   each call  HaloDslash posts a notice "my input is written" to each neighbour, waits for theirs,
//              runs the kernel, then posts "done reading yours" and waits for theirs before it
//              returns, so a caller may overwrite its input the moment apply() is back
#include <mpi.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "dslash/core.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

template <class Real>
class SharedSpinors {
 public:
  // [mu][hop]: the neighbour's buffer that the hop reads (hop 0: forward, the rank one step up in
  // mu), mapped here; null where mu is not split.
  using Neighbours = std::array<std::array<const Real*, 2>, 4>;

  // Collective over the grid. Every neighbour must be on this rank's node (shared_halo_refusal).
  explicit SharedSpinors(const ProcessGrid& grid);
  ~SharedSpinors();
  SharedSpinors(const SharedSpinors&) = delete;
  SharedSpinors& operator=(const SharedSpinors&) = delete;

  // Collective over the node. `reals` zeroed reals on this rank's pages, first touched by the threads
  // that compute on them. The window goes with the View's last copy (collective again: every rank
  // must drop its n-th buffer, as every rank drops its fields, in the same order).
  View<Real, 1> allocate(const std::string& label, std::size_t reals);
  // Where `mine` is the start of one of our buffers, its neighbours'; else null.
  const Neighbours* neighbours_of(const Real* mine) const;
  // MPI_Win_sync on the window of our buffer `mine`: before a notice that it is written, and after the
  // neighbours' notices, for theirs.
  void sync(const Real* mine) const;

 private:
  struct Buffer {
    const Real* mine;
    Neighbours theirs;
    MPI_Win window;
  };
  const Buffer* find(const Real* mine) const;
  const ProcessGrid& grid_;
  MPI_Comm node_ = MPI_COMM_NULL;
  std::array<std::array<int, 2>, 4> node_rank_{};  // [mu][hop]: the neighbour's rank in node_; -1 where mu is not split
  std::shared_ptr<std::vector<Buffer>> buffers_ = std::make_shared<std::vector<Buffer>>();  // shared with the windows' owners
};

}  // namespace dslash::mpi
