#include "mpi/peer_halo.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dslash/core/backend/cuda/space.hpp"
#include "mpi/halo_peers.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

// Tags of the set-up messages and of the notices, apart from the exchange's own (0 or a face slot < 8).
constexpr int kAddressTag = 128, kEventTag = 96, kNoticeTag = 64;

// Where a sender's message goes: the receiver's buffers and the message's place in them.
struct Address {
  cudaIpcMemHandle_t handle;
  std::size_t offset, stride;
};

}  // namespace

template <class Real>
std::string peer_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x) {
  MPI_Comm node;
  MPI_Comm_split_type(grid.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0, device = 0;
  MPI_Comm_size(node, &node_size);
  std::vector<int> devices(static_cast<std::size_t>(node_size));
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  MPI_Allgather(&device, 1, MPI_INT, devices.data(), 1, MPI_INT, node);
  const std::vector<int> peers = peers_of(x.sends()), on_nodes = node_ranks(grid.comm(), node, peers);
  std::string why;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const auto& s = x.sends()[i];
    const int on_node = on_nodes[i];
    if (on_node == MPI_UNDEFINED) {
      why = off_node(grid.rank(), s.peer);
      break;
    }
    const int theirs = devices[static_cast<std::size_t>(on_node)];
    int reach = theirs == device ? 1 : 0;
    if (!reach) cuda::check(cudaDeviceCanAccessPeer(&reach, device, theirs), "cudaDeviceCanAccessPeer");
    if (!reach) {
      why = "GPU " + std::to_string(device) + " of rank " + std::to_string(grid.rank()) + " cannot reach GPU " + std::to_string(theirs) +
            " of its neighbour " + std::to_string(s.peer);
      break;
    }
  }
  int ipc_events = 0;  // the receivers' GPUs wait for the senders' writes through them
  cuda::check(cudaDeviceGetAttribute(&ipc_events, cudaDevAttrIpcEventSupport, device), "cudaDeviceGetAttribute");
  if (why.empty() && !peers.empty() && !ipc_events) why = "GPU " + std::to_string(device) + " of rank " + std::to_string(grid.rank()) + " has no interprocess events";
  MPI_Comm_free(&node);
  return agreed_refusal(why, grid.comm());
}

template <class Real>
PeerHalo<Real>::PeerHalo(const ProcessGrid& grid, const HaloExchange<Real>& x, bool remote_write, cudaStream_t faces)
    : exchange_(x), send_(static_cast<Real*>(CudaSpace::allocate(x.bytes()))), remote_write_(remote_write), faces_(faces), stride_(x.reals()) {
  const std::vector<typename HaloExchange<Real>::Span>&sends = x.sends(), &receives = x.receives();
  std::vector<Address> mine(receives.size());
  std::vector<cudaIpcEventHandle_t> event(sends.size());
  collectively([&] {
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, std::max<std::size_t>(1, 2 * stride_ * sizeof(Real))), "cudaMalloc (peer halo buffers)");
    buffers_.reset(static_cast<Real*>(p));
    cudaIpcMemHandle_t handle{};
    cuda::check(cudaIpcGetMemHandle(&handle, p), "cudaIpcGetMemHandle");
    for (std::size_t i = 0; i < receives.size(); ++i) mine[i] = {handle, receives[i].offset, stride_};
    cuda::check(cudaEventCreateWithFlags(&written_, cudaEventDisableTiming | cudaEventInterprocess), "cudaEventCreateWithFlags (peer halo)");
    cudaIpcEventHandle_t written{};
    cuda::check(cudaIpcGetEventHandle(&written, written_), "cudaIpcGetEventHandle");
    std::fill(event.begin(), event.end(), written);
  }, grid.comm());
  // Each receiver tells its sender where the message goes; each sender tells its receivers the
  // event behind its writes.
  const std::vector<Address> theirs = tell_senders(grid, x, mine, kAddressTag);
  const std::vector<cudaIpcEventHandle_t> senders_event = tell_receivers(grid, x, event, kEventTag);
  collectively([&] {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      Real*& base = opened_[sends[i].peer];  // one mapping a peer: all its messages share its buffers
      if (!base) {
        void* p = nullptr;
        cuda::check(cudaIpcOpenMemHandle(&p, theirs[i].handle, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
        base = static_cast<Real*>(p);
      }
      destinations_.push_back({base, theirs[i].offset, theirs[i].stride});
    }
    for (std::size_t i = 0; i < receives.size(); ++i) {
      cudaEvent_t& e = arrivals_[receives[i].peer];  // one a peer, as the mappings
      if (!e) cuda::check(cudaIpcOpenEventHandle(&e, senders_event[i]), "cudaIpcOpenEventHandle");
    }
  }, grid.comm());
  notices_.requests = notice_requests(grid, x, kNoticeTag);
}

template <class Real>
PeerHalo<Real>::~PeerHalo() {
  for (const auto& [peer, base] : opened_)
    if (base) cudaIpcCloseMemHandle(base);
  for (const auto& [peer, e] : arrivals_)
    if (e) cudaEventDestroy(e);
  if (written_) cudaEventDestroy(written_);
}

template <class Real>
Real* PeerHalo<Real>::message_start(std::size_t i) const {
  const Destination& d = destinations_[i];
  return d.base + static_cast<std::size_t>(parity_) * d.stride + d.offset;
}

template <class Real>
Real* PeerHalo<Real>::send(int mu, Hop hop) {
  const std::size_t offset = exchange_.send_offset(mu, hop), i = exchange_.send_span(mu, hop);
  return remote_write_ ? message_start(i) + (offset - exchange_.sends()[i].offset) : send_.get() + offset;
}

template <class Real>
void PeerHalo<Real>::copy(cudaStream_t stream) const {
  const auto& sends = exchange_.sends();
  for (std::size_t i = 0; i < sends.size(); ++i) cuda::copy_async(message_start(i), send_.get() + sends[i].offset, sends[i].reals * sizeof(Real), stream);
}

template <class Real>
void PeerHalo<Real>::send_out(cudaStream_t stream, cudaEvent_t out) {
  if (!remote_write_) copy(stream);
  cuda::check(cudaEventRecord(written_, stream), "cudaEventRecord (peer halo)");
  if (out) cuda::check(cudaEventRecord(out, stream), "cudaEventRecord");
}

template <class Real>
void PeerHalo<Real>::move() {
  next_call();
  copy(faces_);
  cuda::check(cudaEventRecord(written_, faces_), "cudaEventRecord (peer halo)");
  start();
  wait();
  landed(faces_);
}

template <class Real>
void PeerHalo<Real>::landed(cudaStream_t stream) {
  arrive_on(stream);
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (a kernel failed)");
}

// The notice of call n comes after the sender recorded its event for call n, so the wait is on
// that record or, if the sender has since gone on to call n + 1, on a later one of the same stream:
// never on an earlier one. The sender cannot get further: its call n + 2 waits for our notice of
// call n + 1.
template <class Real>
void PeerHalo<Real>::arrive_on(cudaStream_t stream) {
  for (const auto& [peer, e] : arrivals_) cuda::check(cudaStreamWaitEvent(stream, e, 0), "cudaStreamWaitEvent (peer halo)");
}

template class PeerHalo<float>;
template class PeerHalo<double>;
template std::string peer_halo_refusal<float>(const ProcessGrid&, const HaloExchange<float>&);
template std::string peer_halo_refusal<double>(const ProcessGrid&, const HaloExchange<double>&);

}  // namespace dslash::mpi
