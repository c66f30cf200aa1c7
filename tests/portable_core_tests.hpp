#pragma once
// The portable core's checks, written once and run on every execution space (as Kokkos's unit tests
// are typed over the space): every policy covers every index exactly once (each lane of a vector
// too), reductions are exact on integers and bitwise repeatable, reductions into memory are read by
// later launches, Views live in the space's memory and deep_copy round trips. The functors are
// DSLASH_LAMBDAs over Views in the space's memory space; results come back through
// create_mirror_view and deep_copy.
//
// A backend's test file instantiates the suite for its spaces, e.g.
//   INSTANTIATE_TYPED_TEST_SUITE_P(Host, PortableCore, ::testing::Types<Serial, OpenMP>, SpaceName);
// and, for a space whose memory is not the host's or that may be absent (Cuda), first specialises
// test::SpaceTraits: its memory space, why it cannot run here (every test then reports itself
// skipped with the reason), whether it calls a functor once per lane, and its host-readable memory.
// Checks that only make sense on one backend stay plain tests in that backend's file.
//
// The GPU work of each test lives in a free function: nvcc's extended lambdas may not sit in a
// private member function such as GoogleTest's TestBody.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core.hpp"

namespace dslash::test {

// What the suite needs to know of an execution space; as written, a host space.
template <class ExecSpace>
struct SpaceTraits {
  using memory_space = HostSpace;  // where its Views live
  // Empty where the space can run here, else why not.
  static std::string unavailable_reason() { return {}; }
  // Whether every lane of an index calls the functor (GPU: the lanes are threads), or one call serves
  // all of an index's lanes (CPU: they are one SIMD register).
  static constexpr bool each_lane_calls = false;
  // Whether a pattern has finished when its call returns (no fence needed to read what it wrote).
  static constexpr bool finished_on_return = true;
  // Whether its reductions take std::complex (the GPU's refuse it at compile time: nvcc compiles
  // its operators in device code to nothing).
  static constexpr bool sums_std_complex = true;
  // Memory that a reduction into memory (ReduceInto::host) writes its host copy to, and that the host
  // reads after a fence.
  template <class T>
  class HostCopy {
   public:
    explicit HostCopy(const T& initial) : value_(initial) {}
    T* for_kernels() { return &value_; }
    T read() const { return value_; }

   private:
    T value_;
  };
};

// The type names in the tests' names: "serial", "openmp", "cuda".
class SpaceName {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::name;
  }
};

template <class ExecSpace>
using MemorySpace = typename SpaceTraits<ExecSpace>::memory_space;
template <class T, class ExecSpace>
using SpaceView = View<T, 1, LayoutRight, MemorySpace<ExecSpace>>;

// The calls a functor gets for one index of a launch of `lanes` lanes, and the lane a call is made by.
template <class ExecSpace>
int calls_per_index(int lanes) {
  return SpaceTraits<ExecSpace>::each_lane_calls ? lanes : 1;
}
DSLASH_INLINE_FUNCTION int this_lane() {
#if DSLASH_ON_DEVICE
  return static_cast<int>(threadIdx.x);
#else
  return 0;
#endif
}

// One more call counted, from any thread.
DSLASH_INLINE_FUNCTION void count_call(int& count) {
#if DSLASH_ON_DEVICE
  atomicAdd(&count, 1);
#else
  std::atomic_ref<int>(count).fetch_add(1, std::memory_order_relaxed);
#endif
}

// Idles `ns` nanoseconds on a GPU, so that a reduction is still running long after its launch
// returned; a host pattern has finished when it returns, so there is nothing to outrun.
DSLASH_INLINE_FUNCTION void idle(unsigned ns) {
#if DSLASH_ON_DEVICE
  for (unsigned waited = 0; waited < ns; waited += 1000) __nanosleep(1000);
#else
  (void)ns;
#endif
}

// A host copy of a View in any space.
template <class T, std::size_t R, class L, class S>
std::vector<T> to_host(const View<T, R, L, S>& v) {
  const auto h = create_mirror_view(v);
  deep_copy(h, v);
  return {h.data(), h.data() + h.size()};
}

template <class ExecSpace>
int team_size_at_most(int want) {
  return std::min(want, TeamPolicy<ExecSpace>::team_size_max());
}

template <class ExecSpace>
class PortableCore : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = SpaceTraits<ExecSpace>::unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};
TYPED_TEST_SUITE_P(PortableCore);

namespace core_checks {

// ---------------------------------------------------------------- coverage

// Calls per (index, lane) of a range launch over [begin, end), indices from 0.
template <class ExecSpace>
std::vector<int> range_calls(index_t begin, index_t end, int lanes) {
  const SpaceView<int, ExecSpace> count("count", static_cast<std::size_t>(end * lanes));
  parallel_for("count", RangePolicy<ExecSpace>(begin, end, lanes),
               DSLASH_LAMBDA(index_t i) { count_call(count(static_cast<std::size_t>(i * lanes + this_lane()))); });
  return to_host(count);
}

template <class ExecSpace>
void range_covers_every_index_and_lane_once() {
  std::vector<std::array<index_t, 2>> ranges;  // [begin, end)
  for (index_t end : {0, 1, 7, 1000, 1023})
    for (index_t begin : {0, 3})
      if (begin <= end) ranges.push_back({begin, end});
  for (index_t n : {0, 1, 255, 1000, 4099}) ranges.push_back({3, 3 + n});
  for (int lanes : {1, 4, 8, 32}) {
    const int calling = calls_per_index<ExecSpace>(lanes);
    for (const auto& [begin, end] : ranges) {
      const std::vector<int> c = range_calls<ExecSpace>(begin, end, lanes);
      for (index_t i = 0; i < end; ++i)
        for (int l = 0; l < lanes; ++l)
          ASSERT_EQ(c[static_cast<std::size_t>(i * lanes + l)], i >= begin && l < calling ? 1 : 0)
              << "[" << begin << ", " << end << ") lanes " << lanes << ": index " << i << " lane " << l;
    }
  }
}

// Calls per (point, lane) of an MDRange launch over [lo, hi), points from 0 (dimension 0 fastest).
template <class ExecSpace>
std::vector<int> mdrange_calls(const std::array<index_t, 4>& lo, const std::array<index_t, 4>& hi, const std::array<index_t, 4>& tile, int lanes) {
  const SpaceView<int, ExecSpace> count("count", static_cast<std::size_t>(hi[0] * hi[1] * hi[2] * hi[3] * lanes));
  const index_t e0 = hi[0], e1 = hi[1], e2 = hi[2];
  parallel_for("count", MDRangePolicy<4, ExecSpace>(lo, hi, tile, lanes), DSLASH_LAMBDA(index_t x, index_t y, index_t z, index_t t) {
    count_call(count(static_cast<std::size_t>((x + e0 * (y + e1 * (z + e2 * t))) * lanes + this_lane())));
  });
  return to_host(count);
}

template <class ExecSpace>
void mdrange_covers_every_point_once_with_tiles_that_do_not_divide() {
  const std::array<index_t, 4> lo{1, 0, 2, 0};
  for (const std::array<index_t, 4> hi : {std::array<index_t, 4>{6, 5, 9, 3}, {6, 7, 5, 4}})
    for (int lanes : {1, 8}) {
      const int calling = calls_per_index<ExecSpace>(lanes);
      for (const std::array<index_t, 4> tile : {std::array<index_t, 4>{0, 0, 0, 0}, {2, 3, 4, 2}, {5, 5, 7, 3}, {1, 1, 1, 1}, {7, 2, 3, 5},
                                                {2, 3, 2, 3}, {5, 1, 1, 1}, {64, 64, 1, 1}}) {
        const std::vector<int> c = mdrange_calls<ExecSpace>(lo, hi, tile, lanes);
        for (index_t t = 0; t < hi[3]; ++t)
          for (index_t z = 0; z < hi[2]; ++z)
            for (index_t y = 0; y < hi[1]; ++y)
              for (index_t x = 0; x < hi[0]; ++x)
                for (int l = 0; l < lanes; ++l) {
                  const bool inside = x >= lo[0] && y >= lo[1] && z >= lo[2] && t >= lo[3];
                  ASSERT_EQ(c[static_cast<std::size_t>((x + hi[0] * (y + hi[1] * (z + hi[2] * t))) * lanes + l)], inside && l < calling ? 1 : 0)
                      << "box " << hi[0] << "." << hi[1] << "." << hi[2] << "." << hi[3] << " tile " << tile[0] << "." << tile[1] << "."
                      << tile[2] << "." << tile[3] << " lanes " << lanes << ": point " << x << "." << y << "." << z << "." << t << " lane " << l;
                }
      }
    }
}

// What a team launch did: calls per (league rank, item, lane) of a TeamThreadRange, calls per
// (league rank, item) of a ThreadVectorRange run by team rank 0, and the calls whose member was wrong.
struct TeamCalls {
  std::vector<int> items, vector_items;
  int bad_members = 0;
};

template <class ExecSpace>
TeamCalls team_calls(index_t league, int team, int lanes, index_t items, index_t vector_items) {
  const SpaceView<int, ExecSpace> count("count", static_cast<std::size_t>(league * items * lanes)),
      vector_count("vector_count", static_cast<std::size_t>(league * vector_items)), bad("bad", 1);
  parallel_for("count", TeamPolicy<ExecSpace>(league, team, lanes), DSLASH_LAMBDA(const TeamMember& m) {
    if (m.team_size() != team || m.team_rank() < 0 || m.team_rank() >= team || m.league_size() != league || m.vector_length() != lanes)
      count_call(bad(0));
    parallel_for(TeamThreadRange(m, items), [&](index_t i) {
      count_call(count(static_cast<std::size_t>((m.league_rank() * items + i) * m.vector_length() + this_lane())));
    });
    if (m.team_rank() == 0)
      parallel_for(ThreadVectorRange(m, vector_items), [&](index_t i) { count_call(vector_count(static_cast<std::size_t>(m.league_rank() * vector_items + i))); });
    m.team_barrier();
  });
  return {to_host(count), to_host(vector_count), to_host(bad)[0]};
}

template <class ExecSpace>
void teams_cover_every_league_rank_thread_and_lane() {
  struct Case {
    index_t league;
    int team, lanes;
    index_t items, vector_items;
  };
  std::vector<Case> cases;
  for (int team : {1, 2, 3, 5})
    for (index_t league : {0, 1, 13}) cases.push_back({league, team, 4, 17, 6});
  for (const Case& c : {Case{1, 1, 1, 53, 6}, Case{37, 64, 1, 53, 6}, Case{5, 32, 8, 53, 6}, Case{200, 3, 4, 53, 6}}) cases.push_back(c);
  for (const Case& c : cases) {
    if (c.team > TeamPolicy<ExecSpace>::team_size_max()) continue;
    const TeamCalls got = team_calls<ExecSpace>(c.league, c.team, c.lanes, c.items, c.vector_items);
    const std::string what = std::to_string(c.league) + " x " + std::to_string(c.team) + " x " + std::to_string(c.lanes);
    EXPECT_EQ(got.bad_members, 0) << what;
    const int calling = calls_per_index<ExecSpace>(c.lanes);
    for (std::size_t k = 0; k < got.items.size(); ++k)
      ASSERT_EQ(got.items[k], static_cast<int>(k % static_cast<std::size_t>(c.lanes)) < calling ? 1 : 0) << what << ": item and lane " << k;
    for (std::size_t k = 0; k < got.vector_items.size(); ++k) ASSERT_EQ(got.vector_items[k], 1) << what << ": vector item " << k;
  }
}

// Team rank r writes its slot, and after the barrier every member reads every slot.
template <class ExecSpace>
int members_that_missed_a_write(index_t league, int team) {
  const SpaceView<int, ExecSpace> slots("slots", static_cast<std::size_t>(league * team)), wrong("wrong", 1);
  parallel_for("barrier", TeamPolicy<ExecSpace>(league, team), DSLASH_LAMBDA(const TeamMember& m) {
    const index_t base = m.league_rank() * m.team_size();
    slots(static_cast<std::size_t>(base + m.team_rank())) = m.team_rank() + 1;
    m.team_barrier();
    int sum = 0;  // every member sees every other member's write
    for (int r = 0; r < m.team_size(); ++r) sum += slots(static_cast<std::size_t>(base + r));
    if (sum != m.team_size() * (m.team_size() + 1) / 2) count_call(wrong(0));
  });
  return to_host(wrong)[0];
}

template <class ExecSpace>
std::vector<double> fill_in_kernel() {
  const View<double, 2, LayoutRight, MemorySpace<ExecSpace>> a("a", 7, 9);
  parallel_for("fill", RangePolicy<ExecSpace>(0, 63), DSLASH_LAMBDA(index_t k) { a(k / 9, k % 9) = static_cast<double>(k); });
  return to_host(a);
}

// ---------------------------------------------------------------- reductions

template <class ExecSpace>
index_t range_sum(index_t begin, index_t end) {
  index_t sum = -1;
  parallel_reduce("sum", RangePolicy<ExecSpace>(begin, end), DSLASH_LAMBDA(index_t i, index_t& acc) { acc += i; }, sum);
  return sum;
}

template <class ExecSpace>
double harmonic(index_t n) {
  double h = 0;
  parallel_reduce("h", RangePolicy<ExecSpace>(0, n), DSLASH_LAMBDA(index_t i, double& acc) { acc += 1.0 / (1.0 + static_cast<double>(i)); }, h);
  return h;
}

template <class ExecSpace>
void range_reductions_of_scalars_complex_and_several_values() {
  const index_t n = 10001;
  double sum = -1;
  parallel_reduce("sum", RangePolicy<ExecSpace>(n), DSLASH_LAMBDA(index_t i, double& acc) { acc += static_cast<double>(i); }, sum);
  EXPECT_EQ(sum, static_cast<double>(n * (n - 1) / 2));
  EXPECT_EQ(range_sum<ExecSpace>(3, n), n * (n - 1) / 2 - 3);
  const std::complex<double> expected_csum(static_cast<double>(n), static_cast<double>(3334 + 2 * 3333));
  if constexpr (SpaceTraits<ExecSpace>::sums_std_complex) {
    std::complex<double> csum;
    parallel_reduce("csum", RangePolicy<ExecSpace>(n), DSLASH_LAMBDA(index_t i, std::complex<double>& acc) {
      acc += std::complex<double>(1.0, static_cast<double>(i % 3));
    }, csum);
    EXPECT_EQ(csum, expected_csum);
  }
  std::array<double, 2> csum_parts{};  // the same sum as (re, im), as every space takes it
  parallel_reduce("csum_parts", RangePolicy<ExecSpace>(n), DSLASH_LAMBDA(index_t i, std::array<double, 2>& acc) {
    acc[0] += 1.0;
    acc[1] += static_cast<double>(i % 3);
  }, csum_parts);
  EXPECT_EQ(std::complex<double>(csum_parts[0], csum_parts[1]), expected_csum);
  std::array<double, 3> moments{};
  parallel_reduce("moments", RangePolicy<ExecSpace>(n), DSLASH_LAMBDA(index_t i, std::array<double, 3>& acc) {
    const double x = static_cast<double>(i);
    acc[0] += 1;
    acc[1] += x;
    acc[2] += x * x;
  }, moments);
  EXPECT_EQ(moments[0], static_cast<double>(n));
  EXPECT_EQ(moments[1], static_cast<double>(n * (n - 1) / 2));
  EXPECT_EQ(moments[2], static_cast<double>((n - 1) * n * (2 * n - 1) / 6));
  double empty = 7;
  parallel_reduce("empty", RangePolicy<ExecSpace>(0), DSLASH_LAMBDA(index_t, double& acc) { acc += 1; }, empty);
  EXPECT_EQ(empty, 0.0);
}

template <class ExecSpace>
void reductions_are_exact_on_integers() {
  for (index_t n : {index_t{0}, index_t{1}, index_t{1000}, index_t{1 << 20}, index_t{(1 << 24) + 3}}) EXPECT_EQ(range_sum<ExecSpace>(0, n), n * (n - 1) / 2) << n;
  std::array<index_t, 2> two{};
  parallel_reduce("two", RangePolicy<ExecSpace>(0, 777), DSLASH_LAMBDA(index_t i, std::array<index_t, 2>& acc) {
    acc[0] += 1;
    acc[1] += i * i;
  }, two);
  EXPECT_EQ(two[0], 777);
  EXPECT_EQ(two[1], index_t{776} * 777 * 1553 / 6);
  index_t teams = 0;
  parallel_reduce("teams", TeamPolicy<ExecSpace>(10, team_size_at_most<ExecSpace>(32)), DSLASH_LAMBDA(const TeamMember& m, index_t& acc) {
    parallel_for(TeamThreadRange(m, 100), [&](index_t i) { acc += m.league_rank() * 100 + i; });
  }, teams);
  EXPECT_EQ(teams, index_t{999} * 1000 / 2);
  index_t points = 0;
  parallel_reduce("points", MDRangePolicy<2, ExecSpace>({0, 0}, {13, 11}, {4, 3}), DSLASH_LAMBDA(index_t x, index_t y, index_t& acc) {
    acc += x + 13 * y;
  }, points);
  EXPECT_EQ(points, index_t{142} * 143 / 2);
  EXPECT_EQ(harmonic<ExecSpace>(100000), harmonic<ExecSpace>(100000));  // the same shape twice: bitwise the same sum
}

template <class ExecSpace>
index_t league_sum(index_t league) {
  index_t sum = -1;
  parallel_reduce("many", TeamPolicy<ExecSpace>(league, team_size_at_most<ExecSpace>(4)), DSLASH_LAMBDA(const TeamMember& m, index_t& acc) {
    parallel_for(TeamThreadRange(m, 3), [&](index_t i) { acc += m.league_rank() * 3 + i; });
  }, sum);
  return sum;
}

// On a GPU the last block to finish joins the partials; the block count it waits for wraps back to
// zero for the next reduction, whatever its grid. Leagues of 1 to 300 000 teams in turn (on a GPU
// the last regrows the partials past their first 1 MiB), each sum exact, and a double sum bitwise
// the same every time although a different block (or thread) may finish last.
template <class ExecSpace>
void reductions_in_turn_of_every_league_size_stay_exact() {
  for (int round = 0; round < 3; ++round)
    for (index_t league : {index_t{1}, index_t{7}, index_t{1000}, index_t{2}, index_t{65537}, index_t{300000}, index_t{1}}) {
      const index_t n = league * 3;
      ASSERT_EQ(league_sum<ExecSpace>(league), n * (n - 1) / 2) << league << " teams, round " << round;
    }
  const double first = harmonic<ExecSpace>(1 << 22);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(harmonic<ExecSpace>(1 << 22), first);
}

// Into memory (ReduceInto): on a GPU the call returns before the total is in, and later launches on
// the stream read it there; the host copy is written by the same last block; an empty league leaves
// zero. On a host backend the total and its copy are there when the call returns.
template <class ExecSpace>
void reductions_into_memory_are_read_by_later_launches(int round) {
  const std::string at = "round " + std::to_string(round);
  using Traits = SpaceTraits<ExecSpace>;
  {
    // A slow reduction into memory with its host copy, then a launch that reads the total where the
    // first left it, and two more reductions into memory, one of an empty league.
    const SpaceView<index_t, ExecSpace> totals("totals", 4);
    typename Traits::template HostCopy<index_t> copy(-1);
    index_t* t = totals.data();
    const unsigned ns = 1'000'000;
    const index_t n = 2000;
    parallel_reduce("slow_into", RangePolicy<ExecSpace>(0, n), DSLASH_LAMBDA(index_t i, index_t& acc) {
      idle(ns);
      acc += i;
    }, ReduceInto<index_t>{t, copy.for_kernels()});
    if constexpr (Traits::finished_on_return) {
      EXPECT_EQ(copy.read(), n * (n - 1) / 2) << at << ": the host copy when the call returned";
    }
    parallel_for("read_total", RangePolicy<ExecSpace>(0, 1), DSLASH_LAMBDA(index_t) { t[1] = t[0]; });
    parallel_reduce("quick_into", RangePolicy<ExecSpace>(0, 100), DSLASH_LAMBDA(index_t i, index_t& acc) { acc += 2 * i; }, ReduceInto<index_t>{t + 2});
    parallel_for("poison", RangePolicy<ExecSpace>(0, 1), DSLASH_LAMBDA(index_t) { t[3] = -1; });  // for the empty league's launch to overwrite
    parallel_reduce("empty_into", TeamPolicy<ExecSpace>(0, team_size_at_most<ExecSpace>(32)), DSLASH_LAMBDA(const TeamMember&, index_t& acc) { acc += 1; },
                    ReduceInto<index_t>{t + 3});
    ExecSpace::fence();
    const std::vector<index_t> h = to_host(totals);
    EXPECT_EQ(h[1], n * (n - 1) / 2) << at << ": the total as a later launch read it";
    EXPECT_EQ(copy.read(), n * (n - 1) / 2) << at << ": the host copy";
    EXPECT_EQ(h[2], 99 * 100) << at;
    EXPECT_EQ(h[3], 0) << at << ": an empty league";
  }
  {
    // A double total and its copy, a team's several sums and an empty range, each over what was there.
    const index_t n = 10001;
    const SpaceView<double, ExecSpace> total("total", 1), empty("empty", 1);
    const SpaceView<std::array<index_t, 2>, ExecSpace> team_total("team_total", 1);
    deep_copy(total, -1.0);
    deep_copy(empty, 7.0);
    deep_copy(team_total, std::array<index_t, 2>{-1, -1});
    typename Traits::template HostCopy<double> copy(-1);
    parallel_reduce("into", RangePolicy<ExecSpace>(n), DSLASH_LAMBDA(index_t i, double& acc) { acc += static_cast<double>(i); },
                    ReduceInto<double>{total.data(), copy.for_kernels()});
    if constexpr (Traits::finished_on_return) {
      EXPECT_EQ(total.data()[0], static_cast<double>(n * (n - 1) / 2)) << at << ": the total when the call returned";
      EXPECT_EQ(copy.read(), static_cast<double>(n * (n - 1) / 2)) << at << ": the host copy when the call returned";
    }
    parallel_reduce("team_into", TeamPolicy<ExecSpace>(7, 1), DSLASH_LAMBDA(const TeamMember& m, std::array<index_t, 2>& acc) {
      acc[0] += 1;
      acc[1] += m.league_rank();
    }, ReduceInto<std::array<index_t, 2>>{team_total.data()});
    parallel_reduce("empty_into", RangePolicy<ExecSpace>(0), DSLASH_LAMBDA(index_t, double& acc) { acc += 1; }, ReduceInto<double>{empty.data()});
    ExecSpace::fence();
    EXPECT_EQ(to_host(total)[0], static_cast<double>(n * (n - 1) / 2)) << at;
    EXPECT_EQ(copy.read(), static_cast<double>(n * (n - 1) / 2)) << at << ": the host copy";
    EXPECT_EQ(to_host(team_total)[0], (std::array<index_t, 2>{7, 21})) << at;
    EXPECT_EQ(to_host(empty)[0], 0.0) << at << ": an empty range";
  }
}

template <class ExecSpace>
void mdrange_and_team_reductions_agree_with_serial_sums() {
  index_t md = 0;
  parallel_reduce("md_sum", MDRangePolicy<4, ExecSpace>({0, 0, 0, 0}, {3, 5, 7, 2}, {2, 2, 3, 1}),
                  DSLASH_LAMBDA(index_t x, index_t y, index_t z, index_t t, index_t& acc) { acc += x + 3 * (y + 5 * (z + 7 * t)); }, md);
  index_t want = 0;
  for (index_t t = 0; t < 2; ++t)
    for (index_t z = 0; z < 7; ++z)
      for (index_t y = 0; y < 5; ++y)
        for (index_t x = 0; x < 3; ++x) want += x + 3 * (y + 5 * (z + 7 * t));
  EXPECT_EQ(md, want);

  std::array<index_t, 2> team{};
  parallel_reduce("team_sum", TeamPolicy<ExecSpace>(11, team_size_at_most<ExecSpace>(3)), DSLASH_LAMBDA(const TeamMember& m, std::array<index_t, 2>& acc) {
    parallel_for(TeamThreadRange(m, 10), [&](index_t i) { acc[0] += m.league_rank() * 10 + i; });
    if (m.team_rank() == 0) acc[1] += 1;
  }, team);
  EXPECT_EQ(team[0], 110 * 109 / 2);
  EXPECT_EQ(team[1], 11);
}

// ---------------------------------------------------------------- Views

template <class ExecSpace>
void deep_copy_round_trips_and_views_start_zeroed() {
  using Space = MemorySpace<ExecSpace>;
  View<double, 2> host("host", 37, 5);
  for (std::size_t i = 0; i < 37; ++i)
    for (std::size_t j = 0; j < 5; ++j) host(i, j) = 0.5 * static_cast<double>(i) - static_cast<double>(j);
  View<double, 2, LayoutRight, Space> dev("dev", 37, 5);
  const auto zeros = create_mirror_view(dev);
  deep_copy(zeros, dev);
  for (std::size_t k = 0; k < zeros.size(); ++k) ASSERT_EQ(zeros.data()[k], 0.0);
  deep_copy(dev, host);
  View<double, 2, LayoutRight, Space> dev2("dev2", 37, 5);
  deep_copy(dev2, dev);  // within the space
  const auto back = create_mirror(dev2);
  deep_copy(back, dev2);
  for (std::size_t k = 0; k < host.size(); ++k) EXPECT_EQ(back.data()[k], host.data()[k]);
  deep_copy(dev2, 3.25);
  deep_copy(back, dev2);
  for (std::size_t k = 0; k < back.size(); ++k) EXPECT_EQ(back.data()[k], 3.25);
  EXPECT_THROW(deep_copy(dev2, View<double, 2>("other", 5, 37)), std::invalid_argument);
}

}  // namespace core_checks

TYPED_TEST_P(PortableCore, RangeCoversEveryIndexAndLaneOnce) { core_checks::range_covers_every_index_and_lane_once<TypeParam>(); }

TYPED_TEST_P(PortableCore, MDRangeCoversEveryPointOnceWithTilesThatDoNotDivide) {
  core_checks::mdrange_covers_every_point_once_with_tiles_that_do_not_divide<TypeParam>();
}

// Every league rank, every team thread's share of a TeamThreadRange (on a GPU each lane of it), every
// index of a ThreadVectorRange, and every member's view of its team; teams that the league does not
// fill, and teams of any size the space allows.
TYPED_TEST_P(PortableCore, TeamsCoverEveryLeagueRankThreadAndLane) { core_checks::teams_cover_every_league_rank_thread_and_lane<TypeParam>(); }

TYPED_TEST_P(PortableCore, TeamBarrierOrdersWritesBeforeReads) {
  EXPECT_EQ((core_checks::members_that_missed_a_write<TypeParam>(9, team_size_at_most<TypeParam>(4))), 0);
}

TYPED_TEST_P(PortableCore, TeamSizeAboveTheMaximumIsRejected) {
  EXPECT_THROW(TeamPolicy<TypeParam>(4, TeamPolicy<TypeParam>::team_size_max() + 1), std::invalid_argument);
  EXPECT_THROW(TeamPolicy<TypeParam>(4, 0), std::invalid_argument);
  EXPECT_THROW(RangePolicy<TypeParam>(5, 3), std::invalid_argument);
  EXPECT_THROW((MDRangePolicy<2, TypeParam>({0, 3}, {1, 2})), std::invalid_argument);
}

TYPED_TEST_P(PortableCore, ViewsIndexInsideKernels) {
  const std::vector<double> a = core_checks::fill_in_kernel<TypeParam>();
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], static_cast<double>(k));
}

TYPED_TEST_P(PortableCore, DeepCopyRoundTripsAndViewsStartZeroed) { core_checks::deep_copy_round_trips_and_views_start_zeroed<TypeParam>(); }

TYPED_TEST_P(PortableCore, RangeReductionsOfScalarsComplexAndSeveralValues) {
  core_checks::range_reductions_of_scalars_complex_and_several_values<TypeParam>();
}

TYPED_TEST_P(PortableCore, ReductionsAreExactOnIntegers) { core_checks::reductions_are_exact_on_integers<TypeParam>(); }

TYPED_TEST_P(PortableCore, ReductionsInTurnOfEveryLeagueSizeStayExact) { core_checks::reductions_in_turn_of_every_league_size_stay_exact<TypeParam>(); }

TYPED_TEST_P(PortableCore, ReductionsIntoMemoryAreReadByLaterLaunches) {
  for (int round = 0; round < 3; ++round) core_checks::reductions_into_memory_are_read_by_later_launches<TypeParam>(round);
}

TYPED_TEST_P(PortableCore, MDRangeAndTeamReductionsAgreeWithSerialSums) { core_checks::mdrange_and_team_reductions_agree_with_serial_sums<TypeParam>(); }

REGISTER_TYPED_TEST_SUITE_P(PortableCore, RangeCoversEveryIndexAndLaneOnce, MDRangeCoversEveryPointOnceWithTilesThatDoNotDivide,
                            TeamsCoverEveryLeagueRankThreadAndLane, TeamBarrierOrdersWritesBeforeReads, TeamSizeAboveTheMaximumIsRejected,
                            ViewsIndexInsideKernels, DeepCopyRoundTripsAndViewsStartZeroed, RangeReductionsOfScalarsComplexAndSeveralValues,
                            ReductionsAreExactOnIntegers, ReductionsInTurnOfEveryLeagueSizeStayExact, ReductionsIntoMemoryAreReadByLaterLaunches,
                            MDRangeAndTeamReductionsAgreeWithSerialSums);

}  // namespace dslash::test
