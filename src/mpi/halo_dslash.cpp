#include "mpi/halo_dslash.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <stdexcept>

#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

DslashConfig with_halo(const ProcessGrid& grid, DslashConfig cfg) {
  for (int mu = 0; mu < 4; ++mu) cfg.halo[static_cast<std::size_t>(mu)] = grid.split(mu);
  return cfg;
}

template <class Real>
DslashKernel<Real> make_kernel(const ProcessGrid& grid, const GaugeField<Real>& u, const DslashConfig& cfg) {
  std::optional<DslashKernel<Real>> k;
  // Every rank has the same local lattice and so the same verdict; agreeing keeps it that way.
  collectively([&] {
    try {
      k.emplace(u, with_halo(grid, cfg));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(grid.describe() + ": " + e.what());
    }
  }, grid.comm());
  return std::move(*k);
}

// Tags: which face a message carries, so two messages between the same two ranks (a grid extent of
// 2 makes the neighbours above and below one rank) cannot be confused.
int tag(int mu, Hop hop) { return 2 * mu + (hop == Hop::Forward ? 0 : 1); }

}  // namespace

template <class Real>
HaloDslash<Real>::HaloDslash(const ProcessGrid& grid, const GaugeField<Real>& local_u, DslashConfig cfg)
    : grid_(grid), kernel_(make_kernel(grid, local_u, cfg)), faces_(kernel_, local_u) {
  for (int mu = 0; mu < 4; ++mu) {
    const std::size_t n = faces_.halo_reals(mu);
    if (n > static_cast<std::size_t>(INT_MAX)) throw CollectiveError("a face of " + grid.local().to_string() + " is too large for one MPI message");
    for (int h = 0; h < 2; ++h) {
      send_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)].resize(n);
      receive_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)].resize(n);
    }
    halo_bytes_ += 2 * n * sizeof(Real);
  }
}

template <class Real>
void HaloDslash<Real>::start_exchange(const View<Real, 1>& in) {
  const double t0 = MPI_Wtime();
  requests_.clear();
  for (int mu = 0; mu < 4; ++mu) {
    if (!grid_.split(mu)) continue;
    for (Hop hop : {Hop::Forward, Hop::Backward}) {
      // Our forward hops need the domain above's lower face; our backward hops the domain below's upper face.
      std::vector<Real>& buf = receive_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)];
      requests_.emplace_back();
      MPI_Irecv(buf.data(), static_cast<int>(buf.size()), datatype<Real>(), grid_.neighbour(mu, hop == Hop::Forward ? +1 : -1),
                tag(mu, hop), grid_.comm(), &requests_.back());
    }
  }
  for (int mu = 0; mu < 4; ++mu) {
    if (!grid_.split(mu)) continue;
    for (Hop hop : {Hop::Forward, Hop::Backward}) {
      std::vector<Real>& buf = send_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)];
      faces_.project(mu, hop, in, buf.data());
      requests_.emplace_back();
      MPI_Isend(buf.data(), static_cast<int>(buf.size()), datatype<Real>(), grid_.neighbour(mu, hop == Hop::Forward ? -1 : +1),
                tag(mu, hop), grid_.comm(), &requests_.back());
    }
  }
  times_.project += MPI_Wtime() - t0;
}

template <class Real>
void HaloDslash<Real>::finish_exchange() {
  const double t0 = MPI_Wtime();
  if (MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error("halo exchange: MPI_Waitall failed");
  requests_.clear();
  times_.wait += MPI_Wtime() - t0;
}

template <class Real>
void HaloDslash<Real>::complete(const View<Real, 1>& out) {
  const double t0 = MPI_Wtime();
  for (int mu = 0; mu < 4; ++mu) {
    if (!grid_.split(mu)) continue;
    for (Hop hop : {Hop::Forward, Hop::Backward})
      faces_.complete(mu, hop, receive_[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)].data(), out);
  }
  times_.complete += MPI_Wtime() - t0;
}

template <class Real>
void HaloDslash<Real>::apply(const View<Real, 1>& in, const View<Real, 1>& out, bool overlap) {
  start_exchange(in);
  if (!overlap) finish_exchange();
  const double t0 = MPI_Wtime();
  if (overlap && !requests_.empty()) {
    // MPI moves messages only inside MPI calls (no progress thread): the interior goes in slabs of
    // t with a test between them, so the halos travel while the kernel runs.
    const index_t T = kernel_.outer_t(), slabs = progress_slabs();
    for (index_t k = 0; k < slabs; ++k) {
      kernel_.apply_slab(in, out, T * k / slabs, T * (k + 1) / slabs);
      int done = 0;
      MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
    }
  } else {
    kernel_.apply(in, out);
  }
  times_.interior += MPI_Wtime() - t0;
  if (overlap) finish_exchange();
  complete(out);
  ++times_.calls;
}

template <class Real>
index_t HaloDslash<Real>::progress_slabs() const {
  const KernelLayout& l = kernel_.layout();
  const index_t work = kernel_.output_sites() / (l.folded ? l.lanes : 1) * l.blocks;  // vectors x blocks
  return std::clamp<index_t>(work / kSlabWork, std::min(kMinSlabs, kernel_.outer_t()), kernel_.outer_t());
}

template <class Real>
void HaloDslash<Real>::exchange(const View<Real, 1>& in) {
  start_exchange(in);
  finish_exchange();
}

template <class Real>
std::vector<SpinorField<Real>> HaloDslash<Real>::apply(const std::vector<SpinorField<Real>>& in, bool overlap) {
  const View<Real, 1> packed_in = kernel_.allocate_spinors("halo_in"), packed_out = kernel_.allocate_spinors("halo_out");
  kernel_.pack(in, packed_in);
  apply(packed_in, packed_out, overlap);
  std::vector<SpinorField<Real>> out;
  kernel_.unpack(packed_out, out);
  return out;
}

template class HaloDslash<float>;
template class HaloDslash<double>;

}  // namespace dslash::mpi
