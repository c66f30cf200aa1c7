#include "mpi/halo_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

// One message: the faces (slots 2 mu + hop) it carries, to or from one peer.
struct Message {
  int peer = 0;
  std::vector<std::size_t> slots;
};

// The faces in slot order, grouped by peer when coalescing (in order of each peer's first face).
std::vector<Message> group_faces(const std::array<int, 8>& peer, const std::array<std::size_t, 4>& reals, bool coalesce) {
  std::vector<Message> m;
  for (std::size_t s = 0; s < 8; ++s) {
    if (reals[s / 2] == 0) continue;
    auto same = std::find_if(m.begin(), m.end(), [&](const Message& g) { return coalesce && g.peer == peer[s]; });
    if (same == m.end()) m.push_back({peer[s], {s}});
    else same->slots.push_back(s);
  }
  return m;
}

constexpr std::size_t kPage = 4096;
std::size_t whole_pages(std::size_t bytes) { return std::max<std::size_t>(kPage, (bytes + kPage - 1) / kPage * kPage); }

// Page-aligned, so a device backend can page-lock (register) it as it is.
template <class Real>
Real* allocate(std::size_t reals) {
  void* p = std::aligned_alloc(kPage, whole_pages(reals * sizeof(Real)));
  if (!p) throw std::bad_alloc();
  return static_cast<Real*>(p);
}

}  // namespace

template <class Real>
HaloExchange<Real>::HaloExchange(const ProcessGrid& grid, const std::array<std::size_t, 4>& reals, bool coalesce) : coalesce_(coalesce) {
  // Our Forward faces go down and the Backward faces up; we receive for our Forward hops from above.
  std::array<int, 8> to{}, from{};
  for (int mu = 0; mu < 4; ++mu)
    for (Hop hop : {Hop::Forward, Hop::Backward}) {
      const int down = grid.neighbour(mu, -1), up = grid.neighbour(mu, +1);
      to[slot(mu, hop)] = hop == Hop::Forward ? down : up;
      from[slot(mu, hop)] = hop == Hop::Forward ? up : down;
    }
  std::size_t total = 0;
  for (std::size_t n : reals) total += 2 * n;
  send_.reset(allocate<Real>(total));
  receive_.reset(allocate<Real>(total));
  bytes_ = total * sizeof(Real);

  const auto lay_out = [&](const std::vector<Message>& list, std::array<std::size_t, 8>& offset, Real* buffer, bool sending) {
    std::size_t at = 0;
    for (const Message& m : list) {
      const std::size_t first = at;
      for (std::size_t s : m.slots) {
        offset[s] = at;
        if (sending) send_span_[s] = sends_.size();
        at += reals[s / 2];
      }
      if (at - first > static_cast<std::size_t>(INT_MAX)) throw CollectiveError("a halo message of " + grid.local().to_string() + " is too large for MPI");
      // Coalesced, a peer gets one message each way: tag 0. Otherwise the face's slot names it (a
      // grid extent of 2 sends both faces of a direction to one rank).
      const int tag = coalesce_ ? 0 : static_cast<int>(m.slots.front());
      MPI_Request& r = requests_.requests.emplace_back();
      const int count = static_cast<int>(at - first);
      (sending ? sends_ : receives_).push_back({m.peer, tag, first, at - first});
      if (sending) MPI_Send_init(buffer + first, count, datatype<Real>(), m.peer, tag, grid.comm(), &r);
      else MPI_Recv_init(buffer + first, count, datatype<Real>(), m.peer, tag, grid.comm(), &r);
    }
  };
  lay_out(group_faces(from, reals, coalesce), receive_offset_, receive_.get(), false);
  lay_out(group_faces(to, reals, coalesce), send_offset_, send_.get(), true);
}

RequestSet::~RequestSet() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (active_) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (MPI_Request& r : requests) MPI_Request_free(&r);
}

void RequestSet::start() {
  if (requests.empty()) return;
  if (MPI_Startall(static_cast<int>(requests.size()), requests.data()) != MPI_SUCCESS) throw std::runtime_error(std::string(what_) + ": MPI_Startall failed");
  active_ = true;
}

bool RequestSet::test() {
  if (!active_) return true;
  int done = 0;
  if (MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error(std::string(what_) + ": MPI_Testall failed");
  active_ = !done;
  return done != 0;
}

void RequestSet::wait() {
  if (!active_) return;
  if (MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error(std::string(what_) + ": MPI_Waitall failed");
  active_ = false;
}

template <class Real>
std::size_t HaloExchange<Real>::buffer_bytes() const {
  return whole_pages(bytes_);
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace dslash::mpi
