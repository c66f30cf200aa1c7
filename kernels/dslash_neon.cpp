// The mrhs and vnode kernels for neon, compiled with that instruction set's flags (kernels/CMakeLists.txt).
// The ISA header comes before the body so its permutes and stores are visible there.
#include "simd/neon.hpp"
// keep this order
#include "kernels/runner_table.hpp"

namespace dslash {

template <>
RunnerTable<float> neon_runners<float>() {
  return kernels::runner_table<float, simd::NeonFloat>(false);
}
template <>
RunnerTable<double> neon_runners<double>() {
  return kernels::runner_table<double, simd::NeonDouble>(false);
}

}  // namespace dslash
