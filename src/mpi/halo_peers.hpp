#pragma once
// What the halos that bypass MPI's messages share (GPU to GPU: mpi/peer_halo.hpp; CPU ranks of one
// node: mpi/shared_halo.hpp): which peers share this rank's node, each receiver telling its senders
// where their messages go, and the persistent 0-byte notices that say a message is there.
#include <mpi.h>

#include <string>
#include <vector>

#include "mpi/halo_exchange.hpp"
#include "mpi/mpi_session.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// The rank on `node` of each of `ranks` (ranks of `comm`); MPI_UNDEFINED where it is off the node.
inline std::vector<int> node_ranks(MPI_Comm comm, MPI_Comm node, const std::vector<int>& ranks) {
  MPI_Group all, local;
  MPI_Comm_group(comm, &all);
  MPI_Comm_group(node, &local);
  std::vector<int> on_node(ranks.size(), MPI_UNDEFINED);
  if (!ranks.empty()) MPI_Group_translate_ranks(all, static_cast<int>(ranks.size()), ranks.data(), local, on_node.data());
  MPI_Group_free(&all);
  MPI_Group_free(&local);
  return on_node;
}

// Collective. Empty where every rank's `why` is; else the lowest refusing rank's, on every rank.
inline std::string agreed_refusal(const std::string& why, MPI_Comm comm) {
  try {
    agree(why.empty(), why, comm);
  } catch (const CollectiveError& e) {
    return e.what();
  }
  return {};
}

inline std::string off_node(int rank, int neighbour) {
  return "rank " + std::to_string(rank) + "'s neighbour " + std::to_string(neighbour) + " is on another node";
}

template <class Span>
std::vector<int> peers_of(const std::vector<Span>& spans) {
  std::vector<int> p;
  for (const Span& s : spans) p.push_back(s.peer);
  return p;
}

// Sends `mine[i]` (a trivially copyable T) to the peer of span to[i] and returns, for each span of
// `from`, what its peer sent. A message's tag is `tag` plus its span's, the same on both sides.
template <class T, class Span>
std::vector<T> swap_with_peers(const ProcessGrid& grid, const std::vector<Span>& to, const std::vector<T>& mine, const std::vector<Span>& from, int tag) {
  std::vector<T> theirs(from.size());
  std::vector<MPI_Request> r;
  for (std::size_t i = 0; i < from.size(); ++i)
    MPI_Irecv(&theirs[i], sizeof(T), MPI_BYTE, from[i].peer, tag + from[i].tag, grid.comm(), &r.emplace_back());
  for (std::size_t i = 0; i < to.size(); ++i)
    MPI_Isend(&mine[i], sizeof(T), MPI_BYTE, to[i].peer, tag + to[i].tag, grid.comm(), &r.emplace_back());
  MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  return theirs;
}

// Each receiver sends the sender of its i-th receive span `mine[i]`; the result holds, for each of
// this rank's send spans, what that peer told it (where its message goes).
template <class T, class Real>
std::vector<T> tell_senders(const ProcessGrid& grid, const HaloExchange<Real>& x, const std::vector<T>& mine, int tag) {
  return swap_with_peers(grid, x.receives(), mine, x.sends(), tag);
}

// The other way: each sender sends the receiver of its i-th send span `mine[i]`; the result holds,
// for each of this rank's receive spans, what its sender told it.
template <class T, class Real>
std::vector<T> tell_receivers(const ProcessGrid& grid, const HaloExchange<Real>& x, const std::vector<T>& mine, int tag) {
  return swap_with_peers(grid, x.sends(), mine, x.receives(), tag);
}

// Persistent 0-byte messages, one per message of the exchange: the receives first, then the sends.
template <class Real>
std::vector<MPI_Request> notice_requests(const ProcessGrid& grid, const HaloExchange<Real>& x, int tag) {
  std::vector<MPI_Request> n;
  for (const auto& s : x.receives()) MPI_Recv_init(nullptr, 0, MPI_BYTE, s.peer, tag + s.tag, grid.comm(), &n.emplace_back());
  for (const auto& s : x.sends()) MPI_Send_init(nullptr, 0, MPI_BYTE, s.peer, tag + s.tag, grid.comm(), &n.emplace_back());
  return n;
}

}  // namespace dslash::mpi
