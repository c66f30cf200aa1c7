#include "mpi/shared_halo.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "mpi/halo_peers.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

// Tags of the set-up messages and of the notices, apart from the exchange's own (0 or a face slot < 8)
// and PeerHalo's (64, 96, 128 + slot).
constexpr int kAddressTag = 160, kNoticeTag = 192;

// Where a sender's message goes in the receiver's buffers.
struct Address {
  std::size_t offset, stride;
};

// Reals to a 64-byte boundary, so the two buffers of a rank share no cache line.
template <class Real>
std::size_t whole_lines(std::size_t reals) {
  constexpr std::size_t line = 64 / sizeof(Real);
  return (reals + line - 1) / line * line;
}

}  // namespace

template <class Real>
std::string shared_halo_refusal(const ProcessGrid& grid, const HaloExchange<Real>& x) {
  MPI_Comm node;
  MPI_Comm_split_type(grid.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  std::vector<int> peers = peers_of(x.sends()), from = peers_of(x.receives());
  peers.insert(peers.end(), from.begin(), from.end());
  const std::vector<int> on_node = node_ranks(grid.comm(), node, peers);
  MPI_Comm_free(&node);
  std::string why;
  for (std::size_t i = 0; i < peers.size() && why.empty(); ++i)
    if (on_node[i] == MPI_UNDEFINED) why = off_node(grid.rank(), peers[i]);
  return agreed_refusal(why, grid.comm());
}

template <class Real>
SharedHalo<Real>::SharedHalo(const ProcessGrid& grid, HaloExchange<Real>& x, std::shared_ptr<SharedSpinors<Real>> spinors)
    : x_(x), spinors_(std::move(spinors)), stride_(whole_lines<Real>(x.reals())) {
  const auto &sends = x.sends(), &receives = x.receives();
  MPI_Comm_split_type(grid.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each rank's buffers on its own pages
  const int allocated = MPI_Win_allocate_shared(static_cast<MPI_Aint>(std::max<std::size_t>(1, 2 * stride_) * sizeof(Real)), sizeof(Real), info,
                                                node_, &mine_, &window_);
  MPI_Info_free(&info);
  agree(allocated == MPI_SUCCESS, "shared halo: MPI_Win_allocate_shared failed on rank " + std::to_string(grid.rank()), grid.comm());
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);  // a passive epoch for the whole life, so MPI_Win_sync may order the writes

  // Each receiver tells its sender where the message goes.
  std::vector<Address> mine(receives.size());
  for (std::size_t i = 0; i < receives.size(); ++i) mine[i] = {receives[i].offset, stride_};
  const std::vector<Address> theirs = tell_senders(grid, x, mine, kAddressTag);

  const std::vector<int> on_node = node_ranks(grid.comm(), node_, peers_of(sends));
  collectively([&] {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      if (on_node[i] == MPI_UNDEFINED) throw std::runtime_error("shared halo: rank " + std::to_string(sends[i].peer) + " is on another node");
      MPI_Aint size = 0;
      int unit = 0;
      void* base = nullptr;
      MPI_Win_shared_query(window_, on_node[i], &size, &unit, &base);
      if (theirs[i].offset + sends[i].reals > theirs[i].stride || 2 * theirs[i].stride * sizeof(Real) > static_cast<std::size_t>(size))
        throw std::runtime_error("shared halo: rank " + std::to_string(sends[i].peer) + "'s buffers do not hold our message");
      destinations_.push_back({sends[i].offset, sends[i].reals, theirs[i].stride, static_cast<Real*>(base) + theirs[i].offset});
    }
  }, grid.comm());
  notices_.requests = notice_requests(grid, x, kNoticeTag);
}

template <class Real>
SharedHalo<Real>::~SharedHalo() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  notices_.wait();  // before the window goes (the requests themselves go with notices_)
  if (window_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);  // collective over the node, as every HaloDslash's end is
  }
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

template <class Real>
Real* SharedHalo<Real>::send(int mu, Hop hop) {
  const Destination& d = destinations_[x_.send_span(mu, hop)];
  return d.base + static_cast<std::size_t>(parity_) * d.stride + (x_.send_offset(mu, hop) - d.send_offset);
}

template <class Real>
void SharedHalo<Real>::start() {
  MPI_Win_sync(window_);  // the faces we wrote, before the notices that say so
  notices_.start();
}

template <class Real>
bool SharedHalo<Real>::test() {
  if (!notices_.active()) return true;
  if (!notices_.test()) return false;
  MPI_Win_sync(window_);  // the peers' faces, after their notices
  return true;
}

template <class Real>
void SharedHalo<Real>::wait() {
  if (!notices_.active()) return;
  notices_.wait();
  MPI_Win_sync(window_);
}

template <class Real>
void SharedHalo<Real>::move() {
  next_call();
  const Real* send = x_.send_buffer();
  // Pieces of at most 16 KiB, shared among the threads.
  constexpr std::size_t kPiece = 16384 / sizeof(Real);
  std::vector<std::pair<std::size_t, std::size_t>> pieces;  // (message, first real)
  for (std::size_t i = 0; i < destinations_.size(); ++i)
    for (std::size_t at = 0; at < destinations_[i].reals; at += kPiece) pieces.emplace_back(i, at);
  const auto n = static_cast<std::ptrdiff_t>(pieces.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const auto [i, at] = pieces[static_cast<std::size_t>(k)];
    const Destination& d = destinations_[i];
    Real* to = d.base + static_cast<std::size_t>(parity_) * d.stride + at;
    std::memcpy(to, send + d.send_offset + at, std::min(kPiece, d.reals - at) * sizeof(Real));
  }
  start();
  wait();
}

template class SharedHalo<float>;
template class SharedHalo<double>;
template std::string shared_halo_refusal<float>(const ProcessGrid&, const HaloExchange<float>&);
template std::string shared_halo_refusal<double>(const ProcessGrid&, const HaloExchange<double>&);

}  // namespace dslash::mpi
