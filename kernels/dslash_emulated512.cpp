// The mrhs and vnode kernels on our fallback batch at AVX-512's widths (16 floats, 8 doubles), built
// for the baseline CPU (--simd emulated512): the vector kernels' lane logic tested on any machine.
#include "simd/fallback.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <class Real>
RunnerTable<Real> emulated512_runners() {
  return kernels::runner_table<Real, simd::FallbackBatch<Real, static_cast<int>(64 / sizeof(Real))>>(false);
}

template RunnerTable<float> emulated512_runners<float>();
template RunnerTable<double> emulated512_runners<double>();

}  // namespace dslash
