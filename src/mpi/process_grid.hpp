#pragma once
// ProcessGrid: the 4-D grid of MPI ranks over the global lattice (Grid's --mpi a.b.c.d), each rank
// owning one local block of the lattice. Rank order is MPI_Cart_create's (t fastest); local
// extents must be even, so every block starts on an even site and local parity = global parity.
#include <mpi.h>

#include <string>
#include <string_view>

#include "dslash/lattice/geometry.hpp"

namespace dslash::mpi {

// "1.1.2.2" or "1x1x2x2" -> ranks per direction, x first. Throws std::invalid_argument.
Coord parse_grid(std::string_view text);

class ProcessGrid {
 public:
  // Collective. Throws CollectiveError, the same on every rank, when the grid's product is not the
  // number of ranks, a grid extent does not divide the lattice, or a local extent is odd.
  ProcessGrid(const Coord& grid, const Coord& lattice, MPI_Comm world = MPI_COMM_WORLD);
  ~ProcessGrid();
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Coord& grid() const { return grid_; }
  const Coord& coords() const { return coords_; }  // this rank's place in the grid
  const Geometry& global() const { return global_; }
  const Geometry& local() const { return local_; }
  Coord origin() const { return origin_of(coords_); }  // global coordinates of local site 0
  Coord origin_of(const Coord& grid_coords) const;
  Coord coords_of(int rank) const;
  bool split(int mu) const { return grid_[static_cast<std::size_t>(mu)] > 1; }
  // The rank one step forward (dir = +1) or backward (dir = -1) in direction mu, periodic.
  int neighbour(int mu, int dir) const { return neighbour_[static_cast<std::size_t>(mu)][dir > 0 ? 1 : 0]; }
  std::string describe() const;  // "grid 1.1.2.2 (4 ranks): global 8x8x8x8, local 8x8x4x4"

 private:
  Coord grid_, coords_{};
  Geometry global_, local_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::array<std::array<int, 2>, 4> neighbour_{};
};

std::string grid_text(const Coord& grid);  // "1.1.2.2"

}  // namespace dslash::mpi
