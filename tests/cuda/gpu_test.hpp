#pragma once
// The GPU suites' fixture: each test reports itself skipped, with the reason, where no GPU is
// usable (a build with CUDA on a machine without one), instead of failing. And their buffers: one
// in host memory, its copy in device memory, and back.
#include <gtest/gtest.h>

#include <string>

#include "dslash/core.hpp"
#include "dslash/core/backend/cuda/space.hpp"

namespace dslash {

template <class T>
using HostBuffer = View<T, 1, LayoutRight, HostSpace>;
template <class T>
using DeviceBuffer = View<T, 1, LayoutRight, CudaSpace>;

template <class T>
DeviceBuffer<T> on_device(const HostBuffer<T>& h) {
  DeviceBuffer<T> d(h.label(), h.size());
  deep_copy(d, h);
  return d;
}
template <class T>
auto on_host(const DeviceBuffer<T>& d) {
  const auto h = create_mirror_view(d);
  deep_copy(h, d);
  return h;
}

template <class Base = ::testing::Test>
class GpuTest : public Base {
 protected:
  void SetUp() override {
    const std::string why = cuda::unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

}  // namespace dslash
