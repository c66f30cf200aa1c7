// Every policy and pattern, written once and run on every execution space (as Kokkos's unit tests).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "dslash/core.hpp"

namespace dslash {
namespace {

template <class ExecSpace>
class Policies : public ::testing::Test {};
using ExecSpaces = ::testing::Types<Serial, OpenMP>;
class ExecSpaceNames {
 public:
  template <class T>
  static std::string GetName(int) { return T::name; }
};
TYPED_TEST_SUITE(Policies, ExecSpaces, ExecSpaceNames);

std::vector<std::atomic<int>> counters(std::size_t n) { return std::vector<std::atomic<int>>(n); }

TYPED_TEST(Policies, RangeVisitsEveryIndexOnce) {
  for (index_t n : {0, 1, 7, 1000, 1023}) {
    for (index_t begin : {index_t{0}, index_t{3}}) {
      if (begin > n) continue;
      auto hits = counters(static_cast<std::size_t>(n));
      parallel_for("range", RangePolicy<TypeParam>(begin, n), [&](index_t i) { hits[static_cast<std::size_t>(i)]++; });
      for (index_t i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)], i >= begin ? 1 : 0) << "n=" << n << " i=" << i;
    }
  }
}

TYPED_TEST(Policies, MDRangeVisitsEveryPointOnceWithTilesThatDoNotDivide) {
  const std::array<index_t, 4> begin{1, 0, 2, 0}, end{6, 5, 9, 3};
  for (const std::array<index_t, 4> tile : {std::array<index_t, 4>{2, 3, 4, 2}, {5, 5, 7, 3}, {1, 1, 1, 1}, {0, 0, 0, 0}, {7, 2, 3, 5}}) {
    auto hits = counters(6 * 5 * 9 * 3);
    MDRangePolicy<4, TypeParam> policy(begin, end, tile);
    parallel_for("mdrange", policy, [&](index_t x, index_t y, index_t z, index_t t) {
      hits[static_cast<std::size_t>(x + 6 * (y + 5 * (z + 9 * t)))]++;
    });
    for (index_t t = 0; t < 3; ++t)
      for (index_t z = 0; z < 9; ++z)
        for (index_t y = 0; y < 5; ++y)
          for (index_t x = 0; x < 6; ++x) {
            const bool inside = x >= 1 && z >= 2;
            EXPECT_EQ(hits[static_cast<std::size_t>(x + 6 * (y + 5 * (z + 9 * t)))], inside ? 1 : 0)
                << "tile " << tile[0] << "." << tile[1] << "." << tile[2] << "." << tile[3];
          }
  }
}

TYPED_TEST(Policies, MDRangeIteratesDimensionZeroFastestInsideATile) {
  std::vector<std::array<index_t, 2>> order;
  parallel_for("order", MDRangePolicy<2, Serial>({0, 0}, {3, 2}), [&](index_t i, index_t j) { order.push_back({i, j}); });
  const std::vector<std::array<index_t, 2>> want{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  EXPECT_EQ(order, want);
}

TYPED_TEST(Policies, TeamVisitsEveryLeagueAndNestedIndexOnce) {
  const int max_team = TeamPolicy<TypeParam>::team_size_max();
  for (int team_size : {1, 2, 3, 5}) {
    if (team_size > max_team) continue;
    for (index_t league : {0, 1, 13}) {
      constexpr index_t kInner = 17, kVector = 6;
      auto hits = counters(static_cast<std::size_t>(league * kInner));
      auto vec_hits = counters(static_cast<std::size_t>(league * kVector));
      std::atomic<int> bad_member{0};
      parallel_for("team", TeamPolicy<TypeParam>(league, team_size, 4), [&](const TeamMember& m) {
        if (m.team_size() != team_size || m.team_rank() < 0 || m.team_rank() >= team_size || m.league_size() != league ||
            m.vector_length() != 4)
          bad_member++;
        parallel_for(TeamThreadRange(m, kInner), [&](index_t i) { hits[static_cast<std::size_t>(m.league_rank() * kInner + i)]++; });
        if (m.team_rank() == 0)
          parallel_for(ThreadVectorRange(m, kVector), [&](index_t i) { vec_hits[static_cast<std::size_t>(m.league_rank() * kVector + i)]++; });
      });
      EXPECT_EQ(bad_member, 0);
      for (auto& h : hits) EXPECT_EQ(h, 1) << "team_size " << team_size << " league " << league;
      for (auto& h : vec_hits) EXPECT_EQ(h, 1);
    }
  }
}

TYPED_TEST(Policies, TeamBarrierOrdersWritesBeforeReads) {
  const int team_size = std::min(4, TeamPolicy<TypeParam>::team_size_max());
  constexpr index_t kLeague = 9;
  std::vector<int> slots(static_cast<std::size_t>(kLeague * team_size), 0);
  std::atomic<int> wrong{0};
  parallel_for("barrier", TeamPolicy<TypeParam>(kLeague, team_size), [&](const TeamMember& m) {
    const std::size_t base = static_cast<std::size_t>(m.league_rank() * m.team_size());
    slots[base + static_cast<std::size_t>(m.team_rank())] = m.team_rank() + 1;
    m.team_barrier();
    int sum = 0;  // every member sees every other member's write
    for (int r = 0; r < m.team_size(); ++r) sum += slots[base + static_cast<std::size_t>(r)];
    if (sum != m.team_size() * (m.team_size() + 1) / 2) wrong++;
  });
  EXPECT_EQ(wrong, 0);
}

TYPED_TEST(Policies, TeamSizeAboveTheMaximumIsRejected) {
  EXPECT_THROW(TeamPolicy<TypeParam>(4, TeamPolicy<TypeParam>::team_size_max() + 1), std::invalid_argument);
  EXPECT_THROW(TeamPolicy<TypeParam>(4, 0), std::invalid_argument);
  EXPECT_THROW(RangePolicy<TypeParam>(5, 3), std::invalid_argument);
  EXPECT_THROW((MDRangePolicy<2, TypeParam>({0, 3}, {1, 2})), std::invalid_argument);
}

TYPED_TEST(Policies, RangeReductionsOfScalarsComplexAndSeveralValues) {
  const index_t n = 10001;
  double sum = -1;
  parallel_reduce("sum", RangePolicy<TypeParam>(n), [](index_t i, double& acc) { acc += static_cast<double>(i); }, sum);
  EXPECT_EQ(sum, static_cast<double>(n * (n - 1) / 2));
  index_t isum = -1;
  parallel_reduce("isum", RangePolicy<TypeParam>(3, n), [](index_t i, index_t& acc) { acc += i; }, isum);
  EXPECT_EQ(isum, n * (n - 1) / 2 - 3);
  std::complex<double> csum;
  parallel_reduce("csum", RangePolicy<TypeParam>(n), [](index_t i, std::complex<double>& acc) { acc += std::complex<double>(1.0, static_cast<double>(i % 3)); }, csum);
  EXPECT_EQ(csum, std::complex<double>(static_cast<double>(n), static_cast<double>(3334 + 2 * 3333)));
  std::array<double, 3> moments{};
  parallel_reduce("moments", RangePolicy<TypeParam>(n), [](index_t i, std::array<double, 3>& acc) {
    const double x = static_cast<double>(i);
    acc[0] += 1;
    acc[1] += x;
    acc[2] += x * x;
  }, moments);
  EXPECT_EQ(moments[0], static_cast<double>(n));
  EXPECT_EQ(moments[1], static_cast<double>(n * (n - 1) / 2));
  EXPECT_EQ(moments[2], static_cast<double>((n - 1) * n * (2 * n - 1) / 6));
  double empty = 7;
  parallel_reduce("empty", RangePolicy<TypeParam>(0), [](index_t, double& acc) { acc += 1; }, empty);
  EXPECT_EQ(empty, 0.0);
}

// Into memory (ReduceInto): on a host backend the total and its copy are there when the call
// returns; the empty range leaves zero.
TYPED_TEST(Policies, ReductionsIntoMemoryLeaveTheTotalAndItsCopy) {
  const index_t n = 10001;
  double total = -1, copy = -1;
  parallel_reduce("into", RangePolicy<TypeParam>(n), [](index_t i, double& acc) { acc += static_cast<double>(i); }, ReduceInto<double>{&total, &copy});
  EXPECT_EQ(total, static_cast<double>(n * (n - 1) / 2));
  EXPECT_EQ(copy, total);
  std::array<index_t, 2> team_total{-1, -1};
  parallel_reduce("team_into", TeamPolicy<TypeParam>(7, 1), [](const TeamMember& m, std::array<index_t, 2>& acc) {
    acc[0] += 1;
    acc[1] += m.league_rank();
  }, ReduceInto<std::array<index_t, 2>>{&team_total});
  EXPECT_EQ(team_total, (std::array<index_t, 2>{7, 21}));
  double empty = 7;
  parallel_reduce("empty_into", RangePolicy<TypeParam>(0), [](index_t, double& acc) { acc += 1; }, ReduceInto<double>{&empty});
  EXPECT_EQ(empty, 0.0);
}

TYPED_TEST(Policies, MDRangeAndTeamReductionsAgreeWithSerialSums) {
  index_t md = 0;
  parallel_reduce("md_sum", MDRangePolicy<4, TypeParam>({0, 0, 0, 0}, {3, 5, 7, 2}, {2, 2, 3, 1}),
                  [](index_t x, index_t y, index_t z, index_t t, index_t& acc) { acc += x + 3 * (y + 5 * (z + 7 * t)); }, md);
  index_t want = 0;
  for (index_t t = 0; t < 2; ++t)
    for (index_t z = 0; z < 7; ++z)
      for (index_t y = 0; y < 5; ++y)
        for (index_t x = 0; x < 3; ++x) want += x + 3 * (y + 5 * (z + 7 * t));
  EXPECT_EQ(md, want);

  const int team_size = std::min(3, TeamPolicy<TypeParam>::team_size_max());
  std::array<index_t, 2> team{};
  parallel_reduce("team_sum", TeamPolicy<TypeParam>(11, team_size), [](const TeamMember& m, std::array<index_t, 2>& acc) {
    parallel_for(TeamThreadRange(m, 10), [&](index_t i) { acc[0] += m.league_rank() * 10 + i; });
    if (m.team_rank() == 0) acc[1] += 1;
  }, team);
  EXPECT_EQ(team[0], 110 * 109 / 2);
  EXPECT_EQ(team[1], 11);
}

TEST(Labels, EveryLaunchReportsItsLabelToTheHook) {
  std::vector<std::string> seen;
  set_kernel_hook([&](std::string_view label, double seconds) {
    EXPECT_GE(seconds, 0.0);
    seen.emplace_back(label);
  });
  parallel_for("first", RangePolicy<>(4), [](index_t) {});
  double s = 0;
  parallel_reduce("second", RangePolicy<Serial>(4), [](index_t, double& acc) { acc += 1; }, s);
  set_kernel_hook(nullptr);
  parallel_for("unseen", RangePolicy<>(4), [](index_t) {});
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "second"}));
}

TEST(OpenMPReduce, SameThreadCountGivesBitwiseTheSameSum) {
  const index_t n = 100003;
  auto run = [&] {
    double s = 0;
    parallel_reduce("bitwise", RangePolicy<OpenMP>(n), [](index_t i, double& acc) { acc += 1.0 / static_cast<double>(i + 1); }, s);
    return s;
  };
  const double a = run();
  EXPECT_EQ(a, run());
}

// The OpenMP backend's two ways of handing out a parallel_for (execution_space.hpp): each visits
// every index once, by the space's setting or a range's own, and a team of one thread takes league
// ranks as it frees up while larger teams keep their round-robin.
TEST(OpenMPSchedule, StaticAndDynamicVisitEveryIndexOnce) {
  const Schedule before = OpenMP::schedule();
  for (const Schedule s : {Schedule::Static, Schedule::Dynamic}) {
    OpenMP::set_schedule(s);
    ASSERT_EQ(OpenMP::schedule(), s);
    const std::string name = to_string(s);
    for (index_t n : {index_t{0}, index_t{5}, index_t{100003}}) {
      for (const Schedule own : {Schedule::Default, Schedule::Static, Schedule::Dynamic}) {
        auto hits = counters(static_cast<std::size_t>(n));
        RangePolicy<OpenMP> range(n);
        range.set_schedule(own);
        parallel_for("range", range, [&](index_t i) { hits[static_cast<std::size_t>(i)]++; });
        for (auto& h : hits) ASSERT_EQ(h, 1) << name << " n=" << n << " own " << to_string(own);
      }
    }
    const std::array<index_t, 3> end{7, 9, 11};
    auto points = counters(7 * 9 * 11);
    parallel_for("mdrange", MDRangePolicy<3, OpenMP>({0, 0, 0}, end, {0, 2, 3}),
                 [&](index_t i, index_t j, index_t k) { points[static_cast<std::size_t>(i + 7 * (j + 9 * k))]++; });
    for (auto& h : points) ASSERT_EQ(h, 1) << name;
    for (int team_size : {1, 2}) {
      constexpr index_t kLeague = 101, kInner = 5;
      auto hits = counters(kLeague * kInner);
      parallel_for("team", TeamPolicy<OpenMP>(kLeague, team_size), [&](const TeamMember& m) {
        parallel_for(TeamThreadRange(m, kInner), [&](index_t i) { hits[static_cast<std::size_t>(m.league_rank() * kInner + i)]++; });
      });
      for (auto& h : hits) ASSERT_EQ(h, 1) << name << " team size " << team_size;
    }
  }
  OpenMP::set_schedule(before);
}

// Reductions under both schedules: exact integer sums over every pattern, and, per schedule, the
// same bits from the same thread count (dynamic: a partial per chunk, joined in chunk order).
TEST(OpenMPSchedule, ReductionsAreExactAndBitwiseRepeatable) {
  const Schedule before = OpenMP::schedule();
  for (const Schedule s : {Schedule::Static, Schedule::Dynamic}) {
    OpenMP::set_schedule(s);
    const std::string name = to_string(s);
    for (index_t n : {index_t{0}, index_t{1}, index_t{100003}}) {
      index_t isum = -1;
      parallel_reduce("isum", RangePolicy<OpenMP>(n), [](index_t i, index_t& acc) { acc += i; }, isum);
      EXPECT_EQ(isum, n * (n - 1) / 2) << name << " n=" << n;
    }
    const auto harmonic = [] {
      double h = 0;
      parallel_reduce("harmonic", RangePolicy<OpenMP>(200003), [](index_t i, double& acc) { acc += 1.0 / static_cast<double>(i + 1); }, h);
      return h;
    };
    const double h = harmonic();
    for (int k = 0; k < 5; ++k) ASSERT_EQ(harmonic(), h) << name;
    EXPECT_NEAR(h, std::log(200003.0) + 0.5772156649, 1e-5) << name;
    // A sum of several numbers (the solvers' complex dots), and a functor that is not trivially
    // copyable (it holds a shared_ptr: the backend runs it where it is instead of copying it).
    for (index_t n : {index_t{7}, index_t{100003}}) {
      std::array<index_t, 2> pair{};
      parallel_reduce("pair", RangePolicy<OpenMP>(n), [](index_t i, std::array<index_t, 2>& acc) {
        acc[0] += i;
        acc[1] += 2 * i + 1;
      }, pair);
      EXPECT_EQ(pair[0], n * (n - 1) / 2) << name << " n=" << n;
      EXPECT_EQ(pair[1], n * n) << name << " n=" << n;
      const auto step = std::make_shared<index_t>(3);
      index_t shared_sum = 0;
      parallel_reduce("shared", RangePolicy<OpenMP>(n), [step](index_t i, index_t& acc) { acc += *step * i; }, shared_sum);
      EXPECT_EQ(shared_sum, 3 * (n * (n - 1) / 2)) << name << " n=" << n;
    }
    index_t md = 0;
    parallel_reduce("md", MDRangePolicy<3, OpenMP>({0, 0, 0}, {7, 9, 11}, {0, 2, 3}),
                    [](index_t i, index_t j, index_t k, index_t& acc) { acc += i + 7 * (j + 9 * k); }, md);
    EXPECT_EQ(md, index_t{693} * 692 / 2) << name;
    for (int team_size : {1, 2}) {
      index_t team = 0;
      parallel_reduce("team", TeamPolicy<OpenMP>(101, team_size), [](const TeamMember& m, index_t& acc) {
        parallel_for(TeamThreadRange(m, 5), [&](index_t i) { acc += m.league_rank() * 5 + i; });  // each thread its own indices
      }, team);
      EXPECT_EQ(team, index_t{505} * 504 / 2) << name << " team size " << team_size;
    }
  }
  OpenMP::set_schedule(before);
}

TEST(OpenMPSchedule, DefaultMeansDynamic) {
  const Schedule before = OpenMP::schedule();
  OpenMP::set_schedule(Schedule::Default);  // Default means the default: dynamic
  EXPECT_EQ(OpenMP::schedule(), Schedule::Dynamic);
  OpenMP::set_schedule(before);
}

}  // namespace
}  // namespace dslash
