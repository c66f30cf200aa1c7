// The portable core on the Cuda execution space and CudaSpace: the suite written once for every
// execution space (portable_core_tests.hpp), and the checks that only the GPU has: a team larger
// than a block is refused, reductions on streams of their own, a stream's reduction scratch, device
// memory that runs out. Without a usable GPU every test reports itself skipped with the reason.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "dslash/core.hpp"
#include "portable_core_tests.hpp"

namespace dslash {
namespace test {

// The GPU for the portable suite: Views in device memory, a functor called by every lane, launches
// that return before they finish, and the host copy of a reduction in page-locked mapped memory.
template <>
struct SpaceTraits<Cuda> {
  using memory_space = CudaSpace;
  static std::string unavailable_reason() { return cuda::unavailable_reason(); }
  static constexpr bool each_lane_calls = true;
  static constexpr bool finished_on_return = false;
  static constexpr bool sums_std_complex = false;
  template <class T>
  class HostCopy {
   public:
    explicit HostCopy(const T& initial) : buffer_(sizeof(T)) { *static_cast<T*>(buffer_.get()) = initial; }
    T* for_kernels() { return static_cast<T*>(buffer_.on_device()); }
    T read() const { return *static_cast<const T*>(buffer_.get()); }

   private:
    cuda::MappedHostBuffer buffer_;
  };
};

INSTANTIATE_TYPED_TEST_SUITE_P(Gpu, PortableCore, ::testing::Types<Cuda>, SpaceName);

}  // namespace test
namespace {

class CudaCore : public GpuTest<> {};

// The GPU work of each test lives in a free function: nvcc's extended lambdas may not sit in a
// private member function such as GoogleTest's TestBody.

// 512 threads x vector length 4: more than a block's 1024 threads, refused at the launch.
void oversized_team() { parallel_for("big", TeamPolicy<Cuda>(1, 512, 4), [=] __device__(const TeamMember&) {}); }

long long range_sum(index_t n) {
  long long sum = -1;
  parallel_reduce("sum", RangePolicy<Cuda>(0, n), DSLASH_LAMBDA(index_t i, long long& acc) { acc += i; }, sum);
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
  return {test::to_host(total)[0], wrong};
}

TEST_F(CudaCore, ATeamOfMoreThreadsThanABlockHoldsIsRefused) { EXPECT_THROW(oversized_team(), std::invalid_argument); }

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
