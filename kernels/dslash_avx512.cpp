// The mrhs and vnode kernels for avx512, compiled with that instruction set's flags (kernels/CMakeLists.txt).
// The ISA header comes before the body so its permutes and stores are visible there.
#include "simd/avx512.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <>
RunnerTable<float> avx512_runners<float>() {
  return kernels::runner_table<float, simd::Avx512Float>(false);
}
template <>
RunnerTable<double> avx512_runners<double>() {
  return kernels::runner_table<double, simd::Avx512Double>(false);
}

}  // namespace dslash
