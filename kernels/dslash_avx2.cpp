// The mrhs and vnode kernels for avx2, compiled with that instruction set's flags (kernels/CMakeLists.txt).
// The ISA header comes before the body so its permutes and stores are visible there.
#include "simd/avx2.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <>
RunnerTable<float> avx2_runners<float>() {
  return kernels::runner_table<float, simd::Avx2Float>(false);
}
template <>
RunnerTable<double> avx2_runners<double>() {
  return kernels::runner_table<double, simd::Avx2Double>(false);
}

}  // namespace dslash
