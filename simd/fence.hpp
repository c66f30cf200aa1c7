#pragma once
// Orders streaming (non-temporal) stores before later stores, so other threads see the results.
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
namespace dslash::simd {
inline void store_fence() { _mm_sfence(); }
}
#else
#include <atomic>
namespace dslash::simd {
inline void store_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
}
#endif
