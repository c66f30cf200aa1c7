#include "mpi/shared_spinors.hpp"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>
#include <stdexcept>

#include "mpi/halo_peers.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

template <class Real>
SharedSpinors<Real>::SharedSpinors(const ProcessGrid& grid) : grid_(grid) {
  MPI_Comm_split_type(grid.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_);
  MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN);  // a window too large for the node's shared memory is an error, not an abort
  std::vector<int> peers;
  for (int mu = 0; mu < 4; ++mu)
    for (int hop = 0; hop < 2; ++hop) peers.push_back(grid.split(mu) ? grid.neighbour(mu, hop == 0 ? +1 : -1) : grid.rank());
  const std::vector<int> on_node = node_ranks(grid.comm(), node_, peers);
  std::string why;
  for (int k = 0; k < 8 && why.empty(); ++k)
    if (on_node[static_cast<std::size_t>(k)] == MPI_UNDEFINED) why = off_node(grid.rank(), peers[static_cast<std::size_t>(k)]);
  agree(why.empty(), "shared spinors: " + why, grid.comm());
  for (int mu = 0; mu < 4; ++mu)
    for (int hop = 0; hop < 2; ++hop)
      node_rank_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)] = grid.split(mu) ? on_node[static_cast<std::size_t>(2 * mu + hop)] : -1;
}

template <class Real>
SharedSpinors<Real>::~SharedSpinors() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

template <class Real>
View<Real, 1> SharedSpinors<Real>::allocate(const std::string& label, std::size_t reals) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each rank's buffer on its own pages
  // A window's base follows MPI's own header: every rank rounds its base up to a cache line, or for a
  // large buffer to a huge page, as HostSpace does (memory_space.hpp), in its own address space, where
  // the neighbours map the segment elsewhere: each says how far it rounded.
  const std::size_t bytes = std::max<std::size_t>(1, reals) * sizeof(Real);
  const std::size_t align = bytes >= kHugePage ? kHugePage : kViewAlignment;
  const auto aligned = [align](void* p) {
    return reinterpret_cast<Real*>((reinterpret_cast<std::uintptr_t>(p) + align - 1) / align * align);
  };
  void* base = nullptr;
  MPI_Win window = MPI_WIN_NULL;
  const int allocated = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes + align), 1, info, node_, &base, &window);
  MPI_Info_free(&info);
  agree(allocated == MPI_SUCCESS, "--cpu-halo inputs: a shared-memory window of " + std::to_string(bytes) + " bytes failed on rank " +
                                      std::to_string(grid_.rank()) + " (is /dev/shm large enough?); try --cpu-halo shared", grid_.comm());
  Real* mine = aligned(base);
  const auto rounded = static_cast<long long>(reinterpret_cast<std::uintptr_t>(mine) - reinterpret_cast<std::uintptr_t>(base));
  int node_size = 1;
  MPI_Comm_size(node_, &node_size);
  std::vector<long long> roundings(static_cast<std::size_t>(node_size));
  MPI_Allgather(&rounded, 1, MPI_LONG_LONG, roundings.data(), 1, MPI_LONG_LONG, node_);
  if (align == kHugePage) madvise(mine, bytes, MADV_HUGEPAGE);  // advice only (shared memory may not take it)
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window);  // one passive epoch for the window's life, so MPI_Win_sync may order the writes
  Neighbours theirs{};
  for (std::size_t mu = 0; mu < 4; ++mu)
    for (std::size_t hop = 0; hop < 2; ++hop) {
      if (node_rank_[mu][hop] < 0) continue;
      MPI_Aint size = 0;
      int unit = 0;
      void* theirs_base = nullptr;
      MPI_Win_shared_query(window, node_rank_[mu][hop], &size, &unit, &theirs_base);
      theirs[mu][hop] = reinterpret_cast<const Real*>(static_cast<const char*>(theirs_base) + roundings[static_cast<std::size_t>(node_rank_[mu][hop])]);
    }
  detail::first_touch(mine, reals);
  buffers_->push_back({mine, theirs, window});
  // The window's owner: frees it (collective over the node) and forgets the buffer.
  auto release = [window, buffers = buffers_, mine](void*) mutable {
    std::erase_if(*buffers, [&](const Buffer& b) { return b.mine == mine; });
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    MPI_Win_unlock_all(window);
    MPI_Win_free(&window);
  };
  return View<Real, 1>(label, mine, {reals}, std::shared_ptr<void>(mine, release));
}

template <class Real>
const typename SharedSpinors<Real>::Buffer* SharedSpinors<Real>::find(const Real* mine) const {
  for (const Buffer& b : *buffers_)
    if (b.mine == mine) return &b;
  return nullptr;
}

template <class Real>
const typename SharedSpinors<Real>::Neighbours* SharedSpinors<Real>::neighbours_of(const Real* mine) const {
  const Buffer* b = find(mine);
  return b ? &b->theirs : nullptr;
}

template <class Real>
void SharedSpinors<Real>::sync(const Real* mine) const {
  if (const Buffer* b = find(mine)) MPI_Win_sync(b->window);
}

template class SharedSpinors<float>;
template class SharedSpinors<double>;

}  // namespace dslash::mpi
