#include "mpi/process_grid.hpp"

#include <stdexcept>

#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

const char* const kAxis = "xyzt";

// The local lattice, or the reason there is none; the same verdict on every rank.
Geometry local_lattice(const Coord& grid, const Coord& lattice, int ranks) {
  const Geometry global(lattice);
  long long product = 1;
  for (int g : grid) product *= g;
  const std::string name = "--mpi " + grid_text(grid);
  if (product != ranks)
    throw CollectiveError(name + " is a grid of " + std::to_string(product) + " ranks, but " + std::to_string(ranks) +
                          " were started (mpirun -np " + std::to_string(ranks) + ")");
  Coord local{};
  for (std::size_t mu = 0; mu < 4; ++mu) {
    const std::string axis = std::string("L") + std::to_string(mu) + " (" + kAxis[mu] + ") = " + std::to_string(lattice[mu]);
    if (lattice[mu] % grid[mu] != 0)
      throw CollectiveError(name + " cannot split lattice " + global.to_string() + ": " + axis + " is not divisible by " +
                            std::to_string(grid[mu]) + " ranks");
    local[mu] = lattice[mu] / grid[mu];
    if (local[mu] % 2 != 0)
      throw CollectiveError(name + " on lattice " + global.to_string() + " leaves a local extent of " + std::to_string(local[mu]) +
                            " in " + kAxis[mu] + ": " + axis + " over " + std::to_string(grid[mu]) +
                            " ranks must give an even local extent (the checkerboard needs it)");
  }
  return Geometry(local);
}

}  // namespace

Coord parse_grid(std::string_view text) {
  try {
    const Coord g = parse_extents(text);
    for (int v : g)
      if (v < 1) throw std::invalid_argument("");
    return g;
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("--mpi '" + std::string(text) + "': expected four rank counts a.b.c.d, x first (e.g. 1.1.2.2)");
  }
}

std::string grid_text(const Coord& grid) {
  return std::to_string(grid[0]) + "." + std::to_string(grid[1]) + "." + std::to_string(grid[2]) + "." + std::to_string(grid[3]);
}

ProcessGrid::ProcessGrid(const Coord& grid, const Coord& lattice, MPI_Comm world)
    : grid_(grid), global_(lattice), local_([&] {
        int ranks = 1;
        MPI_Comm_size(world, &ranks);
        return local_lattice(grid, lattice, ranks);
      }()) {
  const int periodic[4] = {1, 1, 1, 1};
  MPI_Cart_create(world, 4, grid_.data(), periodic, /*reorder=*/0, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Cart_coords(comm_, rank_, 4, coords_.data());
  for (int mu = 0; mu < 4; ++mu)
    MPI_Cart_shift(comm_, mu, 1, &neighbour_[static_cast<std::size_t>(mu)][0], &neighbour_[static_cast<std::size_t>(mu)][1]);
}

ProcessGrid::~ProcessGrid() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Coord ProcessGrid::origin_of(const Coord& grid_coords) const {
  Coord o{};
  for (std::size_t mu = 0; mu < 4; ++mu) o[mu] = grid_coords[mu] * local_.extents()[mu];
  return o;
}

Coord ProcessGrid::coords_of(int rank) const {
  Coord c{};
  MPI_Cart_coords(comm_, rank, 4, c.data());
  return c;
}

std::string ProcessGrid::describe() const {
  return "grid " + grid_text(grid_) + " (" + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks") + "): global " +
         global_.to_string() + ", local " + local_.to_string();
}

}  // namespace dslash::mpi
