#include "mpi/distributed_fields.hpp"

#include <algorithm>
#include <complex>
#include <vector>

#include "io/nersc.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

// Messages in pieces that an int count of bytes can describe.
constexpr std::size_t kChunkBytes = std::size_t{1} << 30;

void send_bytes(const void* data, std::size_t bytes, int to, MPI_Comm comm) {
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes; done += kChunkBytes)
    MPI_Send(p + done, static_cast<int>(std::min(kChunkBytes, bytes - done)), MPI_BYTE, to, 0, comm);
}
void receive_bytes(void* data, std::size_t bytes, int from, MPI_Comm comm) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += kChunkBytes)
    MPI_Recv(p + done, static_cast<int>(std::min(kChunkBytes, bytes - done)), MPI_BYTE, from, 0, comm, MPI_STATUS_IGNORE);
}

// Storage index in the global field of each storage index of rank r's local block. Fields store
// `per_site` values of type T per storage index (lexicographic site, or site / 2 on a checkerboard).
std::vector<site_t> global_indices(const ProcessGrid& grid, int rank, Subset subset) {
  const Geometry& local = grid.local();
  const Coord origin = grid.origin_of(grid.coords_of(rank));
  const site_t n = subset == Subset::Full ? local.volume() : local.half_volume();
  std::vector<site_t> index(static_cast<std::size_t>(n));
  for (site_t i = 0; i < n; ++i) {
    Coord x = local.coords(subset == Subset::Full ? i : local.site_from_cb(i, static_cast<Parity>(subset)));
    for (std::size_t mu = 0; mu < 4; ++mu) x[mu] += origin[mu];
    const site_t s = grid.global().site(x);
    index[static_cast<std::size_t>(i)] = subset == Subset::Full ? s : Geometry::cb_index(s);
  }
  return index;
}

template <class T>
void scatter_sites(const ProcessGrid& grid, const T* global, T* local, std::size_t per_site, Subset subset) {
  const std::size_t n = static_cast<std::size_t>(subset == Subset::Full ? grid.local().volume() : grid.local().half_volume());
  if (grid.rank() != 0) return receive_bytes(local, n * per_site * sizeof(T), 0, grid.comm());
  std::vector<T> block(n * per_site);
  for (int r = grid.size() - 1; r >= 0; --r) {  // rank 0 last: its block is the one kept
    const std::vector<site_t> index = global_indices(grid, r, subset);
    T* dst = r == 0 ? local : block.data();
    for (std::size_t i = 0; i < n; ++i) std::copy_n(global + static_cast<std::size_t>(index[i]) * per_site, per_site, dst + i * per_site);
    if (r != 0) send_bytes(block.data(), block.size() * sizeof(T), r, grid.comm());
  }
}

template <class T>
void gather_sites(const ProcessGrid& grid, const T* local, T* global, std::size_t per_site, Subset subset) {
  const std::size_t n = static_cast<std::size_t>(subset == Subset::Full ? grid.local().volume() : grid.local().half_volume());
  if (grid.rank() != 0) return send_bytes(local, n * per_site * sizeof(T), 0, grid.comm());
  std::vector<T> block(n * per_site);
  for (int r = 0; r < grid.size(); ++r) {
    const T* src = local;
    if (r != 0) {
      receive_bytes(block.data(), block.size() * sizeof(T), r, grid.comm());
      src = block.data();
    }
    const std::vector<site_t> index = global_indices(grid, r, subset);
    for (std::size_t i = 0; i < n; ++i) std::copy_n(src + i * per_site, per_site, global + static_cast<std::size_t>(index[i]) * per_site);
  }
}

void check_global(const ProcessGrid& grid, const Geometry& g, const char* what) {
  if (!(g == grid.global()))
    throw std::invalid_argument(std::string(what) + " on " + g.to_string() + " does not match the grid's lattice " + grid.global().to_string());
}

}  // namespace

template <class Real>
GaugeField<Real> scatter(const ProcessGrid& grid, const GaugeField<Real>* global) {
  collectively([&] { if (grid.rank() == 0) check_global(grid, global->geometry(), "gauge field"); }, grid.comm());
  GaugeField<Real> local(grid.local(), "local_gauge");
  scatter_sites(grid, grid.rank() == 0 ? global->data() : nullptr, local.data(), 36, Subset::Full);
  return local;
}

template <class Real>
SpinorField<Real> scatter(const ProcessGrid& grid, const SpinorField<Real>* global, Subset subset) {
  collectively([&] {
    if (grid.rank() != 0) return;
    check_global(grid, global->geometry(), "spinor field");
    if (global->subset() != subset) throw std::invalid_argument("scatter: the spinor field holds the wrong subset");
  }, grid.comm());
  SpinorField<Real> local(grid.local(), subset, "local_spinor");
  scatter_sites(grid, grid.rank() == 0 ? global->data() : nullptr, local.data(), 12, subset);
  return local;
}

template <class Real>
std::optional<GaugeField<Real>> gather(const ProcessGrid& grid, const GaugeField<Real>& local) {
  std::optional<GaugeField<Real>> global;
  if (grid.rank() == 0) global.emplace(grid.global(), "global_gauge");
  gather_sites(grid, local.data(), global ? global->data() : nullptr, 36, Subset::Full);
  return global;
}

template <class Real>
std::optional<SpinorField<Real>> gather(const ProcessGrid& grid, const SpinorField<Real>& local) {
  std::optional<SpinorField<Real>> global;
  if (grid.rank() == 0) global.emplace(grid.global(), local.subset(), "global_spinor");
  gather_sites(grid, local.data(), global ? global->data() : nullptr, 12, local.subset());
  return global;
}

template <class Real>
GaugeField<Real> read_nersc(const ProcessGrid& grid, const std::string& path) {
  std::optional<GaugeField<Real>> global;
  collectively([&] { if (grid.rank() == 0) global.emplace(io::read_nersc<Real>(path, grid.global().extents())); }, grid.comm());
  return scatter(grid, global ? &*global : nullptr);
}

template <class Real>
void write_nersc(const ProcessGrid& grid, const std::string& path, const GaugeField<Real>& local) {
  const std::optional<GaugeField<Real>> global = gather(grid, local);
  collectively([&] { if (global) io::write_nersc(path, *global); }, grid.comm());
}

#define DSLASH_INSTANTIATE(Real)                                                                         \
  template GaugeField<Real> scatter(const ProcessGrid&, const GaugeField<Real>*);                        \
  template SpinorField<Real> scatter(const ProcessGrid&, const SpinorField<Real>*, Subset);              \
  template std::optional<GaugeField<Real>> gather(const ProcessGrid&, const GaugeField<Real>&);          \
  template std::optional<SpinorField<Real>> gather(const ProcessGrid&, const SpinorField<Real>&);        \
  template GaugeField<Real> read_nersc(const ProcessGrid&, const std::string&);                          \
  template void write_nersc(const ProcessGrid&, const std::string&, const GaugeField<Real>&);
DSLASH_INSTANTIATE(float)
DSLASH_INSTANTIATE(double)
#undef DSLASH_INSTANTIATE

}  // namespace dslash::mpi
