// Kernels on our scalar fallback, built for the baseline CPU: the naive kernel (one site per work
// item, W = 1), mrhs and vnode at W = 1 (--simd scalar), and the emulated AVX-512 widths.
#include "simd/fallback.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <class Real>
RunnerTable<Real> scalar_runners() {
  return kernels::runner_table<Real, simd::FallbackBatch<Real, 1>>(true);
}

template <class Real>
RunnerTable<Real> emulated512_runners() {
  return kernels::runner_table<Real, simd::FallbackBatch<Real, static_cast<int>(64 / sizeof(Real))>>(false);
}

template RunnerTable<float> scalar_runners<float>();
template RunnerTable<double> scalar_runners<double>();
template RunnerTable<float> emulated512_runners<float>();
template RunnerTable<double> emulated512_runners<double>();

}  // namespace dslash
