#pragma once
// The GPU suites' fixture: each test reports itself skipped, with the reason, where no GPU is
// usable (a build with CUDA on a machine without one), instead of failing.
#include <gtest/gtest.h>

#include <string>

#include "dslash/core/backend/cuda/space.hpp"

namespace dslash {

template <class Base = ::testing::Test>
class GpuTest : public Base {
 protected:
  void SetUp() override {
    const std::string why = cuda::unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

}  // namespace dslash
