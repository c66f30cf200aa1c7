#pragma once
// Memory spaces: where a View's storage lives. HostSpace here; a device space (CudaSpace in
// core/backend/cuda/space.hpp) slots in beside it without touching kernels. A space says whether
// the host may touch its memory; a space the host cannot touch brings its own copy().
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>

#include "dslash/core/execution_space.hpp"

namespace dslash {

inline constexpr std::size_t kViewAlignment = 64;  // one cache line; also AVX-512 load alignment
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

struct HostSpace {
  using execution_space = DefaultExecutionSpace;  // where loops over its memory run by default
  static constexpr const char* name = "host";
  static constexpr bool host_accessible = true;

  // Large allocations are 2 MiB aligned and asked to use transparent huge pages (before the first
  // touch): a stencil's neighbours lie megabytes apart, and 4 KiB pages then miss the TLB on most hops.
  static void* allocate(std::size_t bytes) {
    const std::size_t align = bytes >= kHugePage ? kHugePage : kViewAlignment;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
    return p;
  }
  static void deallocate(void* p) noexcept { std::free(p); }
};

}  // namespace dslash
