#pragma once
// One CPU kernel variant (family x instruction set x dispatch x precision x gauge compression), the parameter of the
// kernel tests and the MPI halo tests, with the name a test and a failing line give it.
#include <ostream>
#include <string>
#include <vector>

#include "kernels/kernel_options.hpp"

namespace dslash::test {

struct KernelVariant {
  KernelFamily kernel;
  SimdIsa isa;
  Dispatch dispatch;
  bool single;
  int compress = 18;  // reals stored per link: 18, 12 or 8
};

// "vnode avx2 mdrange single" (with compression "... single r12"): joined by "_" it is the test
// name's suffix, by " " what GoogleTest prints for GetParam() (PrintTo) when a test fails.
inline std::string describe(const KernelVariant& v, const char* separator) {
  return std::string(to_string(v.kernel)) + separator + to_string(v.isa) + separator + to_string(v.dispatch) + separator +
         (v.single ? "single" : "double") + (v.compress != 18 ? separator + std::string("r") + std::to_string(v.compress) : "");
}
inline void PrintTo(const KernelVariant& v, std::ostream* os) { *os << describe(v, " "); }

// The component-major CPU layout where the build holds it (DSLASH_CPU_LAYOUTS; the full suite's
// build does), else the site-major one: a reduced build runs the same checks in the layout it has.
inline SpinorLayout left_layout_if_built() { return build::kCpuLeftLayout ? SpinorLayout::Left : SpinorLayout::Right; }
inline std::vector<SpinorLayout> built_cpu_layouts() {
  if (build::kCpuLeftLayout) return {SpinorLayout::Right, SpinorLayout::Left};
  return {SpinorLayout::Right};
}
// The stored reals per link the build holds beyond 18 (DSLASH_LINK_COMPRESSIONS).
inline std::vector<int> built_compressions() {
  std::vector<int> c;
  if (build::kLinks12) c.push_back(12);
  if (build::kLinks8) c.push_back(8);
  return c;
}

}  // namespace dslash::test
