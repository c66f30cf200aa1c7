#pragma once
// Execution policies: *what* index space a parallel pattern walks. Backends decide *how*.
//   RangePolicy    [begin, end)                              f(i)
//   TeamPolicy     league of teams, team_size threads each   f(const TeamMember&)
//   MDRangePolicy  Rank-D box [begin, end), cut into tiles   f(i0, i1, ..., i{Rank-1})
// Every policy has a vector length: how many lanes work on one index together. On a CPU the lanes
// are a SIMD register inside one thread and the backend ignores it; on a GPU they are that many
// neighbouring threads (the fastest thread index, as Kokkos maps ThreadVectorRange), each calling f
// with the same index and finding its lane in its thread index (simd/simt.hpp).
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "dslash/core/execution_space.hpp"
#include "dslash/core/macros.hpp"

namespace dslash {

using index_t = std::int64_t;

template <class ExecSpace = DefaultExecutionSpace>
class RangePolicy {
 public:
  using execution_space = ExecSpace;
  RangePolicy(index_t begin, index_t end, int vector_length = 1) : begin_(begin), end_(end), vector_length_(vector_length) {
    if (end < begin) throw std::invalid_argument("RangePolicy: end < begin");
    if (vector_length < 1) throw std::invalid_argument("RangePolicy: vector length must be >= 1");
  }
  explicit RangePolicy(index_t n) : RangePolicy(0, n) {}
  index_t begin() const { return begin_; }
  index_t end() const { return end_; }
  int vector_length() const { return vector_length_; }
  // A host backend's way of handing out the indices (execution_space.hpp); Default: the space's.
  Schedule schedule() const { return schedule_; }
  RangePolicy& set_schedule(Schedule s) {
    schedule_ = s;
    return *this;
  }

 private:
  index_t begin_, end_;
  int vector_length_;
  Schedule schedule_ = Schedule::Default;
};

template <class ExecSpace = DefaultExecutionSpace>
class TeamPolicy {
 public:
  using execution_space = ExecSpace;
  TeamPolicy(index_t league_size, int team_size, int vector_length = 1)
      : league_size_(league_size), team_size_(team_size), vector_length_(vector_length) {
    if (league_size < 0) throw std::invalid_argument("TeamPolicy: negative league size");
    if (team_size < 1) throw std::invalid_argument("TeamPolicy: team size must be >= 1");
    if (vector_length < 1) throw std::invalid_argument("TeamPolicy: vector length must be >= 1");
    if (team_size > team_size_max())
      throw std::invalid_argument("TeamPolicy: team size " + std::to_string(team_size) + " exceeds the " +
                                  ExecSpace::name + " maximum of " + std::to_string(team_size_max()));
  }
  index_t league_size() const { return league_size_; }
  int team_size() const { return team_size_; }
  int vector_length() const { return vector_length_; }
  static int team_size_max() { return ExecSpace::max_team_size; }

 private:
  index_t league_size_;
  int team_size_, vector_length_;
};

template <int Rank, class ExecSpace = DefaultExecutionSpace>
class MDRangePolicy {
  static_assert(Rank >= 1 && Rank <= 4, "MDRangePolicy supports ranks 1..4");

 public:
  using execution_space = ExecSpace;
  using point_type = std::array<index_t, Rank>;
  static constexpr int rank = Rank;

  // Tiles need not divide the extents: the last tile in a direction is cut short. A tile of 0 in a
  // direction means "the whole extent".
  MDRangePolicy(const point_type& begin, const point_type& end, point_type tile = {}, int vector_length = 1)
      : begin_(begin), end_(end), tile_(tile), vector_length_(vector_length) {
    if (vector_length < 1) throw std::invalid_argument("MDRangePolicy: vector length must be >= 1");
    for (int r = 0; r < Rank; ++r) {
      if (end_[r] < begin_[r]) throw std::invalid_argument("MDRangePolicy: end < begin in dimension " + std::to_string(r));
      if (tile_[r] < 0) throw std::invalid_argument("MDRangePolicy: negative tile size");
      if (tile_[r] == 0) tile_[r] = end_[r] - begin_[r] > 0 ? end_[r] - begin_[r] : 1;
      tiles_[r] = (end_[r] - begin_[r] + tile_[r] - 1) / tile_[r];
    }
  }
  const point_type& begin() const { return begin_; }
  const point_type& end() const { return end_; }
  const point_type& tile() const { return tile_; }
  int vector_length() const { return vector_length_; }
  index_t tile_count(int r) const { return tiles_[r]; }
  DSLASH_INLINE_FUNCTION index_t num_tiles() const {
    index_t n = 1;
    for (int r = 0; r < Rank; ++r) n *= tiles_[r];
    return n;
  }
  DSLASH_INLINE_FUNCTION index_t tile_points() const {
    index_t n = 1;
    for (int r = 0; r < Rank; ++r) n *= tile_[r];
    return n;
  }
  // Bounds of tile number t (dimension 0 fastest, as lattice site order).
  DSLASH_INLINE_FUNCTION void tile_bounds(index_t t, point_type& lo, point_type& hi) const {
    for (int r = 0; r < Rank; ++r) {
      const index_t k = t % tiles_[r];
      t /= tiles_[r];
      lo[r] = begin_[r] + k * tile_[r];
      hi[r] = lo[r] + tile_[r] < end_[r] ? lo[r] + tile_[r] : end_[r];
    }
  }

 private:
  point_type begin_, end_, tile_;
  point_type tiles_{};
  int vector_length_;
};

}  // namespace dslash
