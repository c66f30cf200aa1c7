#pragma once
// SharedHalo<Real>: the halo of CPU ranks on one node, written by the face kernels straight into
// the neighbours' memory (an MPI-3 shared-memory window; Grid's intra-node comms work the same way).
// MPI carries only a 0-byte "your halo is there" per message. Through Open MPI's shared-memory
// transport a message is copied twice (into its queue, out of it), and only inside MPI calls: on the
// 16-core host the decomposed call spent its progress tests and most of its wait on those copies.
//   construction  every rank allocates two receive buffers in a window shared by the node's ranks,
//                 laid out as the exchange's receive buffer, and tells each sender where its message
//                 goes (an offset); a sender maps each peer's buffers once (MPI_Win_shared_query)
//   each call     next_call() switches buffers; the projections write at destination(); start()
//                 posts the notices, wait() waits for the peers' notices; complete reads received()
// The calls alternate between the two receive buffers, as PeerHalo's do (mpi/peer_halo.hpp): a fast
// rank may start call n + 1 while its peer still completes call n from its buffer, so n + 1 writes
// the other one; the projection of call n + 2 follows the peer's notice of call n + 1, which the peer
// sent after it finished call n. MPI_Win_sync on both sides of a notice orders the writes before it
// for the reader.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "mpi/halo_exchange.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Collective. Empty when every message of `x` goes to or comes from a rank of this rank's node; else
// why not, in words, the same on every rank.
template <class Real>
std::string shared_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x);

template <class Real>
class SharedHalo {
 public:
  // Collective over the grid. A failure on any rank is a CollectiveError on all.
  SharedHalo(const ProcessGrid& grid, const HaloExchange<Real>& x);
  ~SharedHalo();
  SharedHalo(const SharedHalo&) = delete;
  SharedHalo& operator=(const SharedHalo&) = delete;

  void next_call() { parity_ ^= 1; }
  // Where the reals the exchange would send from send_offset (in its send buffer) go this call: in
  // the peer's receive buffer.
  Real* destination(std::size_t send_offset) const;
  // Where the reals the exchange would receive at receive_offset are this call: in our own buffer.
  const Real* received(std::size_t receive_offset) const { return mine_ + static_cast<std::size_t>(parity_) * stride_ + receive_offset; }

  // After the faces are written: notifies the peers. test() is true once every notice has come and
  // gone; wait() waits for them. The received halo is readable after either says so.
  void start();
  bool test();
  void wait();
  // The messages alone, as the transport moves them at best: every thread copying `send` (laid out
  // as the exchange's send buffer) into the peers' buffers, then the notices (the bench's ceiling).
  void copy_and_notify(const Real* send);

 private:
  struct Destination {
    std::size_t send_offset = 0, reals = 0, stride = 0;  // stride: the peer's, between its two buffers
    Real* base = nullptr;                                // the peer's first buffer, mapped here, at this message's place
  };
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  Real* mine_ = nullptr;
  std::size_t stride_ = 0;  // reals between the two buffers of a rank
  int parity_ = 1;
  bool active_ = false;
  std::vector<Destination> destinations_;  // one per send span of the exchange, in its order
  std::vector<MPI_Request> notices_;       // persistent 0-byte messages: receives first, then sends
};

}  // namespace dslash::mpi
