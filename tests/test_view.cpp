#include <gtest/gtest.h>

#include <complex>
#include <cstdint>

#include "dslash/core.hpp"

namespace dslash {
namespace {

TEST(View, ZeroInitialisedLabelledAndAligned) {
  View<double, 3> v("field", 3, 4, 5);
  EXPECT_EQ(v.label(), "field");
  EXPECT_EQ(v.size(), 60u);
  EXPECT_EQ(v.extent(0), 3u);
  EXPECT_EQ(v.extent(2), 5u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u);
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v.data()[i], 0.0);
  View<std::complex<float>, 1> odd("odd", 7);  // odd byte counts are still 64-byte aligned
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(odd.data()) % 64, 0u);
}

TEST(View, CopiesShareStorageAndTheLastOneFrees) {
  View<int, 2> a("a", 2, 3);
  EXPECT_EQ(a.use_count(), 1);
  {
    View<int, 2> b = a;
    EXPECT_EQ(a.use_count(), 2);
    b(1, 2) = 42;
    EXPECT_EQ(b.data(), a.data());
  }
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(a(1, 2), 42);
  View<int, 2> c;
  EXPECT_FALSE(c.is_allocated());
  c = a;
  a = View<int, 2>();  // c keeps the storage alive
  EXPECT_EQ(c(1, 2), 42);
  EXPECT_EQ(c.use_count(), 1);
}

TEST(View, LayoutRightIsLastIndexFastest) {
  View<int, 3, LayoutRight> v("r", 2, 3, 4);
  EXPECT_EQ(v.stride(0), 12u);
  EXPECT_EQ(v.stride(1), 4u);
  EXPECT_EQ(v.stride(2), 1u);
  v(1, 2, 3) = 7;
  EXPECT_EQ(v.data()[1 * 12 + 2 * 4 + 3], 7);
}

TEST(View, LayoutLeftIsFirstIndexFastest) {
  View<int, 3, LayoutLeft> v("l", 2, 3, 4);
  EXPECT_EQ(v.stride(0), 1u);
  EXPECT_EQ(v.stride(1), 2u);
  EXPECT_EQ(v.stride(2), 6u);
  v(1, 2, 3) = 7;
  EXPECT_EQ(v.data()[1 + 2 * 2 + 3 * 6], 7);
}

TEST(View, DeepCopyAcrossLayoutsKeepsEveryElement) {
  View<double, 4, LayoutRight> r("r", 3, 2, 5, 4);
  View<double, 4, LayoutLeft> l("l", 3, 2, 5, 4);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < 5; ++k)
        for (std::size_t m = 0; m < 4; ++m) r(i, j, k, m) = static_cast<double>(1000 * i + 100 * j + 10 * k + m);
  deep_copy(l, r);
  View<double, 4, LayoutRight> back("back", 3, 2, 5, 4);
  deep_copy(back, l);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < 5; ++k)
        for (std::size_t m = 0; m < 4; ++m) {
          EXPECT_EQ(l(i, j, k, m), r(i, j, k, m));
          EXPECT_EQ(back(i, j, k, m), r(i, j, k, m));
        }
  EXPECT_NE(back.data(), r.data());
}

TEST(View, DeepCopyRejectsMismatchedExtentsAndFillsValues) {
  View<float, 2> a("a", 2, 3), b("b", 3, 2);
  EXPECT_THROW(deep_copy(a, b), std::invalid_argument);
  deep_copy(a, 2.5f);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.data()[i], 2.5f);
}

TEST(View, HostMirrorViewIsTheViewAndMirrorIsACopy) {
  View<int, 1> a("a", 10);
  auto same = create_mirror_view(a);
  EXPECT_EQ(same.data(), a.data());
  auto copy = create_mirror(a);
  EXPECT_NE(copy.data(), a.data());
  EXPECT_EQ(copy.extents(), a.extents());
  a(3) = 9;
  deep_copy(copy, a);
  EXPECT_EQ(copy(3), 9);
}

TEST(View, AbsurdSizeIsAClearError) {
  using Big = View<double, 4>;
  const std::size_t huge = std::size_t{1} << 20;
  EXPECT_THROW(Big("huge", huge, huge, huge, huge), std::length_error);
}

#ifdef DSLASH_BOUNDS_CHECK
TEST(ViewDeathTest, BoundsCheckedInDebugBuilds) {
  View<int, 2> v("checked", 2, 3);
  EXPECT_DEATH(v(2, 0), "checked.*out of bounds");
  EXPECT_DEATH(v(0, 3), "out of bounds");
}
#endif

}  // namespace
}  // namespace dslash
