#pragma once
// HaloTransport<Real>: how a rank's halo moves, the one interface HaloDslash talks to. Every
// transport keeps the layout of HaloExchange (mpi/halo_exchange.hpp); make_halo_transport (CPU
// ranks) or make_device_halo_transport (GPU ranks) picks one from the options, once:
//   mpi     MPI messages (HaloExchange)
//   shared  the projections write the neighbours' receive buffers in a node's window (mpi/shared_halo.hpp)
//   inputs  shared, and a kernel whose input is an in_place() buffer reads the neighbours' inputs (mpi/shared_spinors.hpp)
//   staged  GPU ranks: MPI messages through page-locked host buffers (halo_transport.cpp)
//   peer    GPU ranks: CUDA IPC writes into the neighbours' buffers (mpi/peer_halo.hpp)
// A call: next_call() -> the projections write at send(mu, hop) -> start() -> test() ... -> wait()
// -> the completion reads received(mu, hop).
#include <memory>

#include "kernels/dslash_faces.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/halo_options.hpp"
#include "mpi/process_grid.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace dslash::mpi {

template <class Real>
class SharedSpinors;  // mpi/shared_spinors.hpp

template <class Real>
class HaloTransport {
 public:
  virtual ~HaloTransport() = default;
  virtual const char* name() const = 0;  // mpi, shared, inputs, staged or peer
  virtual void next_call() {}            // the two-buffer transports switch buffers
  // Where this call's projection writes the message for the neighbours' `hop` in mu, and where the
  // completion reads the one received for ours.
  virtual Real* send(int mu, Hop hop) = 0;
  virtual const Real* received(int mu, Hop hop) const = 0;
  virtual void start() = 0;  // posts this call's messages (or notices)
  virtual bool test() = 0;   // true once every one has come and gone: the received halo is readable
  virtual void wait() = 0;
  // The messages of a call alone, no projection: what the transport moves at best (the bench's exchange-only ceiling).
  virtual void move() { start(), wait(); }
  // Whether the messages move only inside MPI calls (Open MPI's), so an overlapped interior tests them.
  virtual bool needs_progress() const { return true; }
  // inputs: the buffers the neighbours read their halo from in place; else null.
  virtual SharedSpinors<Real>* in_place() const { return nullptr; }
};

// Collective. CPU ranks: Mpi where asked or where no message leaves this rank; Shared or Inputs where
// asked (a refusal, CollectiveError, where a neighbour is off the node) or by Auto where every
// neighbour is on the node (then on_node picks which). Inputs shares the in_place() buffers of
// inputs_of (another transport of this grid) where it has them.
template <class Real>
std::unique_ptr<HaloTransport<Real>> make_halo_transport(const ProcessGrid& grid, HaloExchange<Real>& x, CpuHalo how, CpuHalo on_node,
                                                         const HaloTransport<Real>* inputs_of);

#if defined(DSLASH_HAVE_CUDA)
// A GPU rank's transport: its steps on the CUDA streams, around the host's start() and wait().
template <class Real>
class DeviceHaloTransport : public HaloTransport<Real> {
 public:
  // After the projections on `stream`: the messages on their way (staged: to the host, which waits
  // for them; peer: to the peers, an event behind them); `out`, where not null, recorded behind them.
  virtual void send_out(cudaStream_t stream, cudaEvent_t out) = 0;
  // After wait(): the messages brought in on `stream` (staged: the copy to the device, timed where `timed`).
  virtual void bring_in(cudaStream_t stream, bool timed) = 0;
  // Work queued on `stream` from now on reads received() complete.
  virtual void arrive_on(cudaStream_t stream) = 0;
  // After wait(), for an interior that follows it: returns once the messages are in (peer: the
  // peers' writes, through `stream`; staged: they are).
  virtual void landed(cudaStream_t) {}
  // After a timed bring_in has ended: the seconds of its copy to the device (staged; 0 where nothing is copied in).
  virtual double bring_in_seconds() const { return 0; }
};

// Collective; the rank bound to its GPU. Peer where asked (a refusal, CollectiveError, where a
// neighbour's GPU is out of reach) or by Auto where it can be; else Staged. remote_write: the
// projections write into the peers' buffers themselves (else a copy follows them). faces: move()'s stream.
template <class Real>
std::unique_ptr<DeviceHaloTransport<Real>> make_device_halo_transport(const ProcessGrid& grid, HaloExchange<Real>& x, GpuHalo how, bool remote_write,
                                                                      cudaStream_t faces);
#endif

}  // namespace dslash::mpi
