#pragma once
// HaloExchange<Real>: the messages of a decomposed Dslash, and nothing else: one send and one
// receive buffer, allocated once, and persistent requests (MPI_Send_init / MPI_Recv_init) on them,
// started together each call. The face kernels write straight into send() and read straight from
// receive(): no copy between pack buffers and message buffers.
//
// Stages, each its own call, so a device backend can put its own work between them:
//   start() -> test() ... (while the interior computes) -> wait()
//
// Messages to one peer travel as one (coalesce): with a grid extent of 2 the domains above and
// below are one rank, and both faces of that direction go in one message. Each buffer is laid out
// peer by peer, (direction, hop) in order within a peer; sender and receiver list the same faces
// for each other in the same order, so the layouts agree.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/dslash_faces.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Persistent requests started and completed together (MPI_Startall, Testall, Waitall); `what` names
// them in errors. Freed at the end of its life (after completing any still active).
class RequestSet {
 public:
  explicit RequestSet(const char* what) : what_(what) {}
  ~RequestSet();
  RequestSet(const RequestSet&) = delete;
  RequestSet& operator=(const RequestSet&) = delete;
  std::vector<MPI_Request> requests;
  bool active() const { return active_; }
  void start();
  bool test();  // true once every request of the start is done (or none is active)
  void wait();

 private:
  const char* what_;
  bool active_ = false;
};

template <class Real>
class HaloExchange {
 public:
  // reals[mu]: the reals of one face's message in direction mu (0 where mu is not split).
  HaloExchange(const ProcessGrid& grid, const std::array<std::size_t, 4>& reals, bool coalesce);
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  // What this rank sends for the neighbours' `hop` in direction mu: Forward to the domain below,
  // Backward to the domain above. And what it receives for its own `hop`.
  Real* send(int mu, Hop hop) { return send_.get() + send_offset_[slot(mu, hop)]; }
  const Real* receive(int mu, Hop hop) const { return receive_.get() + receive_offset_[slot(mu, hop)]; }
  // The same places as offsets (reals) into the buffers, for a transport with buffers of this
  // layout, and which of sends() carries (mu, hop).
  std::size_t send_offset(int mu, Hop hop) const { return send_offset_[slot(mu, hop)]; }
  std::size_t receive_offset(int mu, Hop hop) const { return receive_offset_[slot(mu, hop)]; }
  std::size_t send_span(int mu, Hop hop) const { return send_span_[slot(mu, hop)]; }

  // The whole buffers, for a device backend that stages them through device twins laid out alike
  // (one copy each way): `reals()` each, allocated in whole pages (`buffer_bytes()`) to page-lock.
  Real* send_buffer() { return send_.get(); }
  Real* receive_buffer() { return receive_.get(); }
  std::size_t reals() const { return bytes_ / sizeof(Real); }
  std::size_t buffer_bytes() const;

  void start() { requests_.start(); }       // every receive and send of this call
  bool test() { return requests_.test(); }  // true once every message of this call has arrived and left
  void wait() { requests_.wait(); }

  // One message of a call: its peer, its tag, and where it lies in the send or receive buffer. A
  // device backend that moves the bytes itself (GPU to GPU) takes the same layout.
  struct Span {
    int peer = 0, tag = 0;
    std::size_t offset = 0, reals = 0;
  };
  const std::vector<Span>& sends() const { return sends_; }
  const std::vector<Span>& receives() const { return receives_; }

  int messages() const { return static_cast<int>(requests_.requests.size()) / 2; }  // sent per call (as many received)
  std::uint64_t bytes() const { return bytes_; }                           // sent per call
  bool coalesced() const { return coalesce_; }

 private:
  static std::size_t slot(int mu, Hop hop) { return 2 * static_cast<std::size_t>(mu) + (hop == Hop::Forward ? 0 : 1); }
  struct Free {
    void operator()(Real* p) const { std::free(p); }
  };
  std::unique_ptr<Real[], Free> send_, receive_;
  std::array<std::size_t, 8> send_offset_{}, receive_offset_{}, send_span_{};
  RequestSet requests_{"halo exchange"};  // receives first, then sends
  std::vector<Span> sends_, receives_;
  std::uint64_t bytes_ = 0;
  bool coalesce_;
};

}  // namespace dslash::mpi
