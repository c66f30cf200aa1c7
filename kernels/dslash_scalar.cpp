// Kernels on our scalar fallback, built for the baseline CPU: the naive kernel (one site per work
// item, W = 1) and mrhs and vnode at W = 1 (--simd scalar). The emulated AVX-512 widths are in
// dslash_emulated512.cpp.
#include "simd/fallback.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <class Real>
RunnerTable<Real> scalar_runners() {
  return kernels::runner_table<Real, simd::FallbackBatch<Real, 1>>(true);
}

template RunnerTable<float> scalar_runners<float>();
template RunnerTable<double> scalar_runners<double>();

}  // namespace dslash
