#pragma once
// SharedHalo<Real>: the halo of CPU ranks on one node, written by the face kernels straight into
// the neighbours' memory (an MPI-3 shared-memory window; Grid's intra-node comms work the same way).
// MPI carries only a 0-byte "your halo is there" per message. Through Open MPI's shared-memory
// transport a message is copied twice (into its queue, out of it), and only inside MPI calls: on the
// 16-core host the decomposed call spent its progress tests and most of its wait on those copies.
//   construction  every rank allocates two receive buffers in a window shared by the node's ranks,
//                 laid out as the exchange's receive buffer, and tells each sender where its message
//                 goes (an offset); a sender maps each peer's buffers once (MPI_Win_shared_query)
//   each call     next_call() switches buffers; the projections write at send(); start() posts
//                 the notices, wait() waits for the peers' notices; the completion reads received()
// The calls alternate between the two receive buffers, as PeerHalo's do (mpi/peer_halo.hpp): a fast
// rank may start call n + 1 while its peer still completes call n from its buffer, so n + 1 writes
// the other one; the projection of call n + 2 follows the peer's notice of call n + 1, which the peer
// sent after it finished call n. MPI_Win_sync on both sides of a notice orders the writes before it
// for the reader.
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "mpi/halo_exchange.hpp"
#include "mpi/halo_transport.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Collective. Empty when every message of `x` goes to or comes from a rank of this rank's node; else
// why not, in words, the same on every rank.
template <class Real>
std::string shared_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x);

template <class Real>
class SharedHalo final : public HaloTransport<Real> {
 public:
  // Collective over the grid. A failure on any rank is a CollectiveError on all. spinors: the
  // "inputs" transport's buffers, read in place where a call's input is one of them (HaloDslash).
  SharedHalo(const ProcessGrid& grid, HaloExchange<Real>& x, std::shared_ptr<SharedSpinors<Real>> spinors = nullptr);
  ~SharedHalo() override;
  SharedHalo(const SharedHalo&) = delete;
  SharedHalo& operator=(const SharedHalo&) = delete;

  const char* name() const override { return spinors_ ? "inputs" : "shared"; }
  void next_call() override { parity_ ^= 1; }
  // In the peer's receive buffer, and in our own.
  Real* send(int mu, Hop hop) override;
  const Real* received(int mu, Hop hop) const override { return mine_ + static_cast<std::size_t>(parity_) * stride_ + x_.receive_offset(mu, hop); }
  // After the faces are written: notifies the peers. test() is true once every notice has come and
  // gone; wait() waits for them. The received halo is readable after either says so.
  void start() override;
  bool test() override;
  void wait() override;
  // Every thread copying the exchange's send buffer into the peers' buffers, then the notices.
  void move() override;
  bool needs_progress() const override { return false; }  // the notices need none: the faces are in place
  SharedSpinors<Real>* in_place() const override { return spinors_.get(); }
  const std::shared_ptr<SharedSpinors<Real>>& spinors() const { return spinors_; }

 private:
  struct Destination {
    std::size_t send_offset = 0, reals = 0, stride = 0;  // stride: the peer's, between its two buffers
    Real* base = nullptr;                                // the peer's first buffer, mapped here, at this message's place
  };
  HaloExchange<Real>& x_;
  std::shared_ptr<SharedSpinors<Real>> spinors_;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  Real* mine_ = nullptr;
  std::size_t stride_ = 0;  // reals between the two buffers of a rank
  int parity_ = 1;
  std::vector<Destination> destinations_;  // one per send span of the exchange, in its order
  RequestSet notices_{"shared halo"};      // persistent 0-byte messages: receives first, then sends
};

}  // namespace dslash::mpi
