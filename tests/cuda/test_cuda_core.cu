// The portable core on the Cuda execution space and CudaSpace: every policy covers every index
// exactly once (each lane of a vector too), reductions are exact on integers, deep_copy round trips.
// Without a usable GPU every test reports itself skipped with the reason.
#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <vector>

#include "gpu_test.hpp"
#include "dslash/core.hpp"

namespace dslash {
namespace {

class CudaCore : public GpuTest<> {};

using DeviceCounts = View<int, 1, LayoutRight, CudaSpace>;

// Host copy of a device View.
template <class T>
std::vector<T> to_host(const View<T, 1, LayoutRight, CudaSpace>& v) {
  const auto h = create_mirror_view(v);
  deep_copy(h, v);
  return {h.data(), h.data() + h.size()};
}

TEST_F(CudaCore, DeepCopyRoundTripsAndDeviceViewsStartZeroed) {
  View<double, 2> host("host", 37, 5);
  for (std::size_t i = 0; i < 37; ++i)
    for (std::size_t j = 0; j < 5; ++j) host(i, j) = 0.5 * static_cast<double>(i) - static_cast<double>(j);
  View<double, 2, LayoutRight, CudaSpace> dev("dev", 37, 5);
  const auto zeros = create_mirror_view(dev);
  deep_copy(zeros, dev);
  for (std::size_t k = 0; k < zeros.size(); ++k) ASSERT_EQ(zeros.data()[k], 0.0);
  deep_copy(dev, host);
  View<double, 2, LayoutRight, CudaSpace> dev2("dev2", 37, 5);
  deep_copy(dev2, dev);  // device to device
  const auto back = create_mirror(dev2);
  deep_copy(back, dev2);
  for (std::size_t k = 0; k < host.size(); ++k) EXPECT_EQ(back.data()[k], host.data()[k]);
  deep_copy(dev2, 3.25);
  deep_copy(back, dev2);
  for (std::size_t k = 0; k < back.size(); ++k) EXPECT_EQ(back.data()[k], 3.25);
  EXPECT_THROW(deep_copy(dev2, View<double, 2>("other", 5, 37)), std::invalid_argument);
}

// The GPU work of each test lives in a free function: nvcc's extended lambdas may not sit in a
// private member function such as GoogleTest's TestBody.
std::vector<double> fill_in_kernel() {
  View<double, 2, LayoutRight, CudaSpace> a("a", 7, 9);
  parallel_for("fill", RangePolicy<Cuda>(0, 63), DSLASH_LAMBDA(index_t k) { a(k / 9, k % 9) = static_cast<double>(k); });
  const auto h = create_mirror_view(a);
  deep_copy(h, a);
  return {h.data(), h.data() + h.size()};
}

// Calls per (index, lane) of a range launch over [begin, begin + n).
std::vector<int> range_counts(index_t begin, index_t n, int lanes) {
  DeviceCounts count("count", static_cast<std::size_t>((begin + n) * lanes));
  parallel_for("count", RangePolicy<Cuda>(begin, begin + n, lanes), [=] __device__(index_t i) {
    atomicAdd(&count(static_cast<std::size_t>(i * lanes + threadIdx.x)), 1);
  });
  return to_host(count);
}

// Calls per (league rank, item, lane), items split over each team's threads.
std::vector<int> team_counts(int league, int team, int lanes, index_t items) {
  DeviceCounts count("count", static_cast<std::size_t>(league * items * lanes));
  parallel_for("count", TeamPolicy<Cuda>(league, team, lanes), [=] __device__(const TeamMember& m) {
    parallel_for(TeamThreadRange(m, items), [&](index_t i) {
      atomicAdd(&count(static_cast<std::size_t>((m.league_rank() * items + i) * m.vector_length() + threadIdx.x)), 1);
    });
    m.team_barrier();
  });
  return to_host(count);
}

void oversized_team() { parallel_for("big", TeamPolicy<Cuda>(1, 512, 4), [=] __device__(const TeamMember&) {}); }

// Calls per (point, lane) of a 6x7x5x4 box launch over [lo, hi).
std::vector<int> mdrange_counts(const std::array<index_t, 4>& lo, const std::array<index_t, 4>& hi, const std::array<index_t, 4>& tile, int lanes) {
  DeviceCounts count("count", 6 * 7 * 5 * 4 * static_cast<std::size_t>(lanes));
  parallel_for("count", MDRangePolicy<4, Cuda>(lo, hi, tile, lanes), [=] __device__(index_t x, index_t y, index_t z, index_t t) {
    atomicAdd(&count(static_cast<std::size_t>((x + 6 * (y + 7 * (z + 5 * t))) * lanes + threadIdx.x)), 1);
  });
  return to_host(count);
}

long long range_sum(index_t n) {
  long long sum = -1;
  parallel_reduce("sum", RangePolicy<Cuda>(0, n), DSLASH_LAMBDA(index_t i, long long& acc) { acc += i; }, sum);
  return sum;
}
std::array<long long, 2> count_and_squares(index_t n) {
  std::array<long long, 2> two{};
  parallel_reduce("two", RangePolicy<Cuda>(0, n), DSLASH_LAMBDA(index_t i, std::array<long long, 2>& acc) {
    acc[0] += 1;
    acc[1] += i * i;
  }, two);
  return two;
}
long long team_sum() {
  long long teams = 0;
  parallel_reduce("teams", TeamPolicy<Cuda>(10, 32), DSLASH_LAMBDA(const TeamMember& m, long long& acc) {
    parallel_for(TeamThreadRange(m, 100), [&](index_t i) { acc += m.league_rank() * 100 + i; });
  }, teams);
  return teams;
}
long long mdrange_sum() {
  long long points = 0;
  parallel_reduce("points", MDRangePolicy<2, Cuda>({0, 0}, {13, 11}, {4, 3}), DSLASH_LAMBDA(index_t x, index_t y, long long& acc) {
    acc += x + 13 * y;
  }, points);
  return points;
}
long long many_teams_sum(index_t teams) {
  long long sum = -1;
  parallel_reduce("many", TeamPolicy<Cuda>(teams, 4), DSLASH_LAMBDA(const TeamMember& m, long long& acc) {
    parallel_for(TeamThreadRange(m, 3), [&](index_t i) { acc += m.league_rank() * 3 + i; });
  }, sum);
  return sum;
}
// sum of i over [0, n), each thread first idling for `ns` nanoseconds: a reduction that is still
// running long after its launch returned.
long long slow_sum(index_t n, unsigned ns) {
  long long sum = -1;
  parallel_reduce("slow", RangePolicy<Cuda>(0, n), [=] __device__(index_t i, long long& acc) {
    for (unsigned waited = 0; waited < ns; waited += 1000) __nanosleep(1000);
    acc += i;
  }, sum);
  return sum;
}
// A slow reduction into device memory (with its host copy), which returns at once; then a launch
// that reads the total where the first left it, and two more reductions into memory, one of an
// empty league. Returns {read by the later launch, host copy, the later ones' device totals}.
std::array<long long, 4> reductions_into_memory(index_t n, unsigned ns) {
  View<long long, 1, LayoutRight, CudaSpace> totals("totals", 4);
  cuda::MappedHostBuffer copy(sizeof(long long));
  long long* t = totals.data();
  parallel_reduce("slow_into", RangePolicy<Cuda>(0, n), [=] __device__(index_t i, long long& acc) {
    for (unsigned waited = 0; waited < ns; waited += 1000) __nanosleep(1000);
    acc += i;
  }, ReduceInto<long long>{t, static_cast<long long*>(copy.on_device())});
  parallel_for("read_total", RangePolicy<Cuda>(0, 1), DSLASH_LAMBDA(index_t) { t[1] = t[0]; });
  parallel_reduce("quick_into", RangePolicy<Cuda>(0, 100), DSLASH_LAMBDA(index_t i, long long& acc) { acc += 2 * i; }, ReduceInto<long long>{t + 2});
  parallel_for("poison", RangePolicy<Cuda>(0, 1), DSLASH_LAMBDA(index_t) { t[3] = -1; });  // for the empty league's launch to overwrite
  parallel_reduce("empty_into", TeamPolicy<Cuda>(0, 32), DSLASH_LAMBDA(const TeamMember&, long long& acc) { acc += 1; }, ReduceInto<long long>{t + 3});
  cuda::check(cudaStreamSynchronize(cuda::current_stream()), "cudaStreamSynchronize");
  const std::vector<long long> h = to_host(totals);
  return {h[1], *static_cast<const long long*>(copy.get()), h[2], h[3]};
}

// A reduction into memory left running on one stream while the same host thread waits for
// reductions on another: each stream has its own partials and block count.
std::array<long long, 2> reductions_on_two_streams(index_t n, unsigned ns, int quick) {
  cuda::Stream slow_stream, quick_stream;
  View<long long, 1, LayoutRight, CudaSpace> total("total", 1);
  long long* t = total.data();
  {
    cuda::StreamScope on(slow_stream.get());
    parallel_reduce("slow_into", RangePolicy<Cuda>(0, n), [=] __device__(index_t i, long long& acc) {
      for (unsigned waited = 0; waited < ns; waited += 1000) __nanosleep(1000);
      acc += i;
    }, ReduceInto<long long>{t});
  }
  long long wrong = 0;
  {
    cuda::StreamScope on(quick_stream.get());
    for (int k = 0; k < quick; ++k) wrong += range_sum(5000) != 4999LL * 5000 / 2;
  }
  slow_stream.synchronize();
  return {to_host(total)[0], wrong};
}

double harmonic(index_t n) {
  double h = 0;
  parallel_reduce("h", RangePolicy<Cuda>(0, n), DSLASH_LAMBDA(index_t i, double& acc) { acc += 1.0 / (1.0 + static_cast<double>(i)); }, h);
  return h;
}

TEST_F(CudaCore, DeviceViewsIndexInsideKernels) {
  const std::vector<double> a = fill_in_kernel();
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], static_cast<double>(k));
}

TEST_F(CudaCore, RangeCoversEveryIndexAndLaneOnce) {
  for (int lanes : {1, 4, 8, 32})
    for (index_t n : {index_t{0}, index_t{1}, index_t{255}, index_t{1000}, index_t{4099}}) {
      const index_t begin = 3;
      const auto c = range_counts(begin, n, lanes);
      for (index_t i = 0; i < begin + n; ++i)
        for (int l = 0; l < lanes; ++l) ASSERT_EQ(c[static_cast<std::size_t>(i * lanes + l)], i < begin ? 0 : 1) << "n " << n << " lanes " << lanes;
    }
}

TEST_F(CudaCore, TeamsCoverEveryLeagueRankThreadAndLane) {
  for (auto [league, team, lanes] : {std::array<int, 3>{1, 1, 1}, {37, 64, 1}, {5, 32, 8}, {200, 3, 4}})
    for (int c : team_counts(league, team, lanes, 53)) ASSERT_EQ(c, 1) << league << " x " << team << " x " << lanes;
  EXPECT_THROW(oversized_team(), std::invalid_argument);
}

TEST_F(CudaCore, MDRangeCoversEveryPointOnceWithTilesThatDoNotDivide) {
  const std::array<index_t, 4> lo{1, 0, 2, 0}, hi{6, 7, 5, 4};
  for (int lanes : {1, 8})
    for (const auto& tile : {std::array<index_t, 4>{}, {2, 3, 2, 3}, {5, 1, 1, 1}, {64, 64, 1, 1}}) {
      const auto c = mdrange_counts(lo, hi, tile, lanes);
      for (index_t t = 0; t < 4; ++t)
        for (index_t z = 0; z < 5; ++z)
          for (index_t y = 0; y < 7; ++y)
            for (index_t x = 0; x < 6; ++x)
              for (int l = 0; l < lanes; ++l)
                ASSERT_EQ(c[static_cast<std::size_t>((x + 6 * (y + 7 * (z + 5 * t))) * lanes + l)], x >= lo[0] && z >= lo[2] ? 1 : 0);
    }
}

TEST_F(CudaCore, ReductionsAreExactOnIntegers) {
  for (index_t n : {index_t{0}, index_t{1}, index_t{1000}, index_t{1 << 20}, index_t{(1 << 24) + 3}}) EXPECT_EQ(range_sum(n), static_cast<long long>(n) * (n - 1) / 2);
  const auto two = count_and_squares(777);
  EXPECT_EQ(two[0], 777);
  EXPECT_EQ(two[1], 776LL * 777 * 1553 / 6);
  EXPECT_EQ(team_sum(), 999LL * 1000 / 2);
  EXPECT_EQ(mdrange_sum(), 142LL * 143 / 2);
  EXPECT_EQ(harmonic(100000), harmonic(100000));  // the same shape twice: bitwise the same sum
}

// The last block to finish joins the partials; the block count it waits for wraps back to zero for
// the next reduction, whatever its grid. Grids of 1 to 300 000 blocks in turn (the last regrows the
// partials past their first 1 MiB), each sum exact, and a double sum bitwise the same every time
// although a different block may finish last.
TEST_F(CudaCore, ReductionsInTurnOfEveryGridSizeStayExact) {
  for (int round = 0; round < 3; ++round)
    for (index_t teams : {index_t{1}, index_t{7}, index_t{1000}, index_t{2}, index_t{65537}, index_t{300000}, index_t{1}}) {
      const index_t n = teams * 3;
      ASSERT_EQ(many_teams_sum(teams), static_cast<long long>(n) * (n - 1) / 2) << teams << " teams, round " << round;
    }
  const double first = harmonic(1 << 22);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(harmonic(1 << 22), first);
}

// The host waits for a reduction's own total, on the reduction's stream: on a stream of its own, a
// reduction whose threads idle for milliseconds, then quick ones in turn, each return their own
// sum, never the one before.
TEST_F(CudaCore, EachReductionWaitsForItsOwnTotal) {
  cuda::Stream stream;
  cuda::StreamScope on(stream.get());
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(slow_sum(1000, 2'000'000), 999LL * 1000 / 2) << "round " << round;
    for (index_t n = 1; n < 5000; n += 997) ASSERT_EQ(range_sum(n), static_cast<long long>(n) * (n - 1) / 2) << n << ", round " << round;
  }
}

// Into memory (ReduceInto): the call returns before the total is in, and later launches on the
// stream read it there; the host copy is written by the same last block; an empty league leaves zero.
TEST_F(CudaCore, ReductionsIntoMemoryAreReadByLaterLaunches) {
  for (int round = 0; round < 3; ++round) {
    const auto got = reductions_into_memory(2000, 1'000'000);
    EXPECT_EQ(got[0], 1999LL * 2000 / 2) << "round " << round << ": the total as a later launch read it";
    EXPECT_EQ(got[1], 1999LL * 2000 / 2) << "round " << round << ": the host copy";
    EXPECT_EQ(got[2], 99LL * 100) << "round " << round;
    EXPECT_EQ(got[3], 0) << "round " << round << ": an empty league";
  }
}

TEST_F(CudaCore, AReductionLeftRunningOnOneStreamKeepsItsPartials) {
  const auto got = reductions_on_two_streams(3000, 2'000'000, 20);
  EXPECT_EQ(got[0], 2999LL * 3000 / 2);
  EXPECT_EQ(got[1], 0) << "quick reductions on the other stream came back wrong";
}

// A stream's reduction scratch (1 MiB of device memory) ends with the stream: a hundred streams made,
// reduced on and ended leave the thread holding the scratches it held before.
TEST_F(CudaCore, AStreamsReductionScratchEndsWithIt) {
  ASSERT_EQ(range_sum(1000), 999LL * 1000 / 2);  // the default stream's, kept
  const std::size_t before = backend::cuda_detail::ReduceScratch::held();
  for (int i = 0; i < 100; ++i) {
    cuda::Stream stream;
    cuda::StreamScope on(stream.get());
    ASSERT_EQ(range_sum(1000), 999LL * 1000 / 2) << "stream " << i;
    ASSERT_EQ(backend::cuda_detail::ReduceScratch::held(), before + 1) << "stream " << i;
  }
  EXPECT_EQ(backend::cuda_detail::ReduceScratch::held(), before);
}

TEST_F(CudaCore, DeviceAllocationThatDoesNotFitSaysHowMuchIsFree) {
  try {
    View<char, 1, LayoutRight, CudaSpace> huge("huge", std::size_t{1} << 50);
    FAIL() << "a 1 PiB device allocation succeeded";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("MiB free"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dslash
