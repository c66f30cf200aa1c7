// The mrhs and vnode kernels for sse2, compiled with that instruction set's flags (kernels/CMakeLists.txt).
// The ISA header comes before the body so its permutes and stores are visible there.
#include "simd/sse2.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <>
RunnerTable<float> sse2_runners<float>() {
  return kernels::runner_table<float, simd::Sse2Float>(false);
}
template <>
RunnerTable<double> sse2_runners<double>() {
  return kernels::runner_table<double, simd::Sse2Double>(false);
}

}  // namespace dslash
