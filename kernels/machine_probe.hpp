#pragma once
// The two roofline ceilings (CONVENTIONS.md), measured with the instruction set and the threads a
// kernel uses. Included by the per-ISA translation units after the ISA header.
#include <omp.h>

#include <chrono>

#include "dslash/core.hpp"
#include "kernels/dslash_runner.hpp"
#include "simd/fence.hpp"

namespace dslash::kernels {

// a = b + s c over n reals with streaming stores; returns seconds. n is a multiple of the lanes.
template <class Vec>
double stream_triad(typename Vec::value_type* a, const typename Vec::value_type* b, const typename Vec::value_type* c,
                    index_t n, typename Vec::value_type s) {
  constexpr index_t W = static_cast<index_t>(Vec::size);
  const Vec scale(s);
  const auto start = std::chrono::steady_clock::now();
  parallel_for("stream_triad", RangePolicy<>(n / W), [=](index_t i) {
    simd::stream_store(a + i * W, simd::madd(scale, Vec::load_aligned(c + i * W), Vec::load_aligned(b + i * W)));
  });
#pragma omp parallel
  simd::store_fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Every thread runs kChains independent FMA chains (enough to cover the FMA latency on both
// ports); returns FLOP/s over all threads.
template <class Vec>
double fma_peak(index_t iterations) {
  using Real = typename Vec::value_type;
  constexpr int kChains = 12, W = static_cast<int>(Vec::size);
  const int threads = omp_get_max_threads();
  View<Real, 1> sink("fma_sink", static_cast<std::size_t>(threads) * W);
  Real* out = sink.data();
  const auto start = std::chrono::steady_clock::now();
  parallel_for("fma_peak", RangePolicy<>(threads), [=](index_t t) {
    Vec acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = Vec(Real(0.5) + Real(0.01) * static_cast<Real>(k + t));
    const Vec m(Real(0.999999)), add(Real(1e-7));
    for (index_t i = 0; i < iterations; ++i)
      for (int k = 0; k < kChains; ++k) acc[k] = simd::madd(acc[k], m, add);
    Vec sum = acc[0];
    for (int k = 1; k < kChains; ++k) sum = sum + acc[k];
    sum.store_aligned(out + t * W);  // keeps the loop alive
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * W * kChains * static_cast<double>(iterations) * threads / seconds;
}

}  // namespace dslash::kernels
