// The portable core on the host: the suite written once for every execution space
// (portable_core_tests.hpp) on Serial and OpenMP, and the checks that only a host backend has: the
// order inside a tile, the launch hook, OpenMP's schedules and its bitwise repeatable reductions.
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
#include "portable_core_tests.hpp"

namespace dslash {
namespace test {

using HostSpaces = ::testing::Types<Serial, OpenMP>;
// The portable suite on the host's execution spaces.
INSTANTIATE_TYPED_TEST_SUITE_P(Host, PortableCore, HostSpaces, SpaceName);

}  // namespace test
namespace {

std::vector<std::atomic<int>> counters(std::size_t n) { return std::vector<std::atomic<int>>(n); }

// The order of the points inside one tile, which a CPU thread walks alone (a GPU tile's points are
// walked by a block's rows at once): dimension 0 fastest.
template <class ExecSpace>
class HostPolicies : public ::testing::Test {};
TYPED_TEST_SUITE(HostPolicies, test::HostSpaces, test::SpaceName);

TYPED_TEST(HostPolicies, MDRangeIteratesDimensionZeroFastestInsideATile) {
  std::vector<std::array<index_t, 2>> order;
  parallel_for("order", MDRangePolicy<2, TypeParam>({0, 0}, {3, 2}), [&](index_t i, index_t j) { order.push_back({i, j}); });
  const std::vector<std::array<index_t, 2>> want{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  EXPECT_EQ(order, want);
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
