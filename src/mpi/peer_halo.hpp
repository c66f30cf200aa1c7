#pragma once
// PeerHalo<Real>: the halo messages of GPU ranks moved GPU to GPU with CUDA IPC, for ranks of one
// node whose GPUs reach each other (NVLink or PCIe peer access) or that share one GPU. The host and
// MPI carry only a 0-byte "your halo is there" per message (QUDA's peer-to-peer policy, simplest form).
//   construction  every rank allocates two receive buffers on its GPU, laid out as the exchange's
//                 receive buffer, and tells each sender where its message goes (an IPC handle and
//                 an offset); a sender opens each peer's handle once
//   each call     next_call(); then either the face projections write their messages straight
//                 into the peers' receive buffers (destination(): QUDA's remote write, no send
//                 buffer, no copy; vnode and naive), or copy() moves a send buffer there (mrhs;
//                 the exchange-only ceiling); sent() records an interprocess event behind those
//                 writes; start() posts the notices at once (the writes may still run: a notice
//                 says the event of this call is recorded), wait() waits for the peers' notices,
//                 and arrive_on(stream) makes a stream wait on the GPU for the peers' events, so
//                 no host waits for a write to end (QUDA's IPC events)
// The calls alternate between the two receive buffers: a fast rank may start call n + 1 while its
// peer still completes call n from its buffer, so n + 1 writes the other one; the writes of call
// n + 2 are queued after the peer's notice of call n + 1, which the peer sent after it finished call n.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi/halo_exchange.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Collective. Empty when every message of `x` can go GPU to GPU: each peer on this rank's node, its
// GPU this rank's or one this rank's reaches, and this rank's GPU has interprocess events; else why
// not, in words, the same on every rank.
template <class Real>
std::string peer_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x);

template <class Real>
class PeerHalo {
 public:
  // Collective; the rank bound to its GPU (mpi::bind_gpu). A CUDA IPC failure on any rank is a
  // CollectiveError on all.
  PeerHalo(const ProcessGrid& grid, const HaloExchange<Real>& x);
  ~PeerHalo();
  PeerHalo(const PeerHalo&) = delete;
  PeerHalo& operator=(const PeerHalo&) = delete;

  // Starts a call: the other receive buffers.
  void next_call() { parity_ ^= 1; }
  // Where this call's message reals at `send_offset` into the exchange's send buffer layout go: the
  // peer's receive buffer, mapped here, for a kernel of this rank's GPU to write (peer access).
  Real* destination(std::size_t send_offset) const;
  // Enqueues on `stream` the copies of `send` (device memory, laid out as the exchange's send
  // buffer) to their destinations (cudaMemcpyAsync, device to device, one copy a message).
  void copy(const Real* send, cudaStream_t stream) const;
  // Records, behind this call's writes into the peers' buffers queued on `stream`, the event they wait for.
  void sent(cudaStream_t stream);
  // Notifies the peers that this call's writes are enqueued (start) and waits for their notices (wait).
  void start();
  void wait();
  // After wait(): work enqueued on `stream` from now on runs once the peers' writes into this rank's
  // buffer have ended.
  void arrive_on(cudaStream_t stream) const;
  // This call's receive buffer (device memory), complete for the work of a stream after arrive_on.
  const Real* receive() const { return buffers_.get() + static_cast<std::size_t>(parity_) * stride_; }

 private:
  struct Destination {
    Real* base = nullptr;  // the peer's receive buffers, mapped here
    std::size_t offset = 0, stride = 0;
  };
  // This call's place of send span i in its peer's receive buffer.
  Real* message_start(std::size_t i) const;
  struct FreeDevice {
    void operator()(Real* p) const { cudaFree(p); }
  };
  const HaloExchange<Real>& exchange_;
  std::unique_ptr<Real, FreeDevice> buffers_;  // two receive buffers, `stride_` reals apart
  std::size_t stride_ = 0;
  int parity_ = 1;
  std::vector<Destination> destinations_;  // one per send span of the exchange
  std::map<int, Real*> opened_;            // peer rank -> its mapped buffers
  std::vector<MPI_Request> notices_;       // persistent 0-byte messages: receives first, then sends
  cudaEvent_t written_{};                  // recorded behind this rank's writes to its peers (interprocess)
  std::map<int, cudaEvent_t> arrivals_;    // sender rank -> its `written_`, opened here
};

}  // namespace dslash::mpi
