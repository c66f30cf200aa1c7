#pragma once
// Memory spaces: where a View's storage lives. Host only for now; a device space
// (cudaMalloc / sycl::malloc_device) slots in beside HostSpace without touching kernels.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>

namespace dslash {

inline constexpr std::size_t kViewAlignment = 64;  // one cache line; also AVX-512 load alignment

struct HostSpace {
  static constexpr const char* name = "host";

  static void* allocate(std::size_t bytes) {
    const std::size_t rounded = (bytes + kViewAlignment - 1) / kViewAlignment * kViewAlignment;
    void* p = std::aligned_alloc(kViewAlignment, rounded == 0 ? kViewAlignment : rounded);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void deallocate(void* p) noexcept { std::free(p); }
};

}  // namespace dslash
