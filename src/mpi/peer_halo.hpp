#pragma once
// PeerHalo<Real>: the halo messages of GPU ranks moved GPU to GPU with CUDA IPC, for ranks of one
// node whose GPUs reach each other (NVLink or PCIe peer access) or that share one GPU. The host and
// MPI carry only a 0-byte "your halo is there" per message (QUDA's peer-to-peer policy, simplest form).
//   construction  every rank allocates two receive buffers on its GPU, laid out as the exchange's
//                 receive buffer, and tells each sender where its message goes (an IPC handle and
//                 an offset); a sender opens each peer's handle once
//   each call     next_call(); then either the face projections write their messages straight
//                 into the peers' receive buffers (send() with remote_write: QUDA's remote write,
//                 no copy; vnode and naive), or into a device send buffer that send_out() copies
//                 there (mrhs); send_out() records an interprocess event behind those writes;
//                 start() posts the notices at once (the writes may still run: a notice says the
//                 event of this call is recorded), wait() waits for the peers' notices, and
//                 arrive_on(stream) makes a stream wait on the GPU for the peers' events, so no
//                 host waits for a write to end (QUDA's IPC events)
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
#include "mpi/halo_transport.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Collective. Empty when every message of `x` can go GPU to GPU: each peer on this rank's node, its
// GPU this rank's or one this rank's reaches, and this rank's GPU has interprocess events; else why
// not, in words, the same on every rank.
template <class Real>
std::string peer_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x);

template <class Real>
class PeerHalo final : public DeviceHaloTransport<Real> {
 public:
  // Collective; the rank bound to its GPU (mpi::bind_gpu). A CUDA IPC failure on any rank is a
  // CollectiveError on all. remote_write: the projections write the peers' buffers (send());
  // else a device send buffer, copied by send_out(). faces: move()'s stream.
  PeerHalo(const ProcessGrid& grid, const HaloExchange<Real>& x, bool remote_write, cudaStream_t faces);
  ~PeerHalo() override;
  PeerHalo(const PeerHalo&) = delete;
  PeerHalo& operator=(const PeerHalo&) = delete;

  const char* name() const override { return "peer"; }
  void next_call() override { parity_ ^= 1; }  // the other receive buffers
  Real* send(int mu, Hop hop) override;
  // This call's receive buffer (device memory), complete for the work of a stream after arrive_on.
  const Real* received(int mu, Hop hop) const override { return receive() + exchange_.receive_offset(mu, hop); }
  // Notifies the peers that this call's writes are enqueued (start) and waits for their notices (wait).
  void start() override { notices_.start(); }
  bool test() override { return notices_.test(); }
  void wait() override { notices_.wait(); }
  // The copies of the send buffer to the peers, their event, the notices, and the GPU's wait for the peers' copies.
  void move() override;
  // The copies of the send buffer to their destinations (without remote_write; one a message), then
  // the event the peers wait for.
  void send_out(cudaStream_t stream, cudaEvent_t out) override;
  void bring_in(cudaStream_t stream, bool) override { arrive_on(stream); }
  // After wait(): work enqueued on `stream` from now on runs once the peers' writes into this rank's
  // buffer have ended.
  void arrive_on(cudaStream_t stream) override;
  void landed(cudaStream_t stream) override;

 private:
  struct Destination {
    Real* base = nullptr;  // the peer's receive buffers, mapped here
    std::size_t offset = 0, stride = 0;
  };
  // This call's place of send span i in its peer's receive buffer.
  Real* message_start(std::size_t i) const;
  const Real* receive() const { return buffers_.get() + static_cast<std::size_t>(parity_) * stride_; }
  void copy(cudaStream_t stream) const;  // the send buffer to the destinations
  struct FreeDevice {
    void operator()(Real* p) const { cudaFree(p); }
  };
  const HaloExchange<Real>& exchange_;
  std::unique_ptr<Real, FreeDevice> buffers_, send_;  // two receive buffers, `stride_` reals apart; a send buffer
  bool remote_write_;
  cudaStream_t faces_;
  std::size_t stride_ = 0;
  int parity_ = 1;
  std::vector<Destination> destinations_;  // one per send span of the exchange
  std::map<int, Real*> opened_;            // peer rank -> its mapped buffers
  RequestSet notices_{"peer halo"};        // persistent 0-byte messages: receives first, then sends
  cudaEvent_t written_{};                  // recorded behind this rank's writes to its peers (interprocess)
  std::map<int, cudaEvent_t> arrivals_;    // sender rank -> its `written_`, opened here
};

}  // namespace dslash::mpi
