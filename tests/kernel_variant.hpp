#pragma once
// One CPU kernel variant (family x instruction set x dispatch x precision x gauge compression), the parameter of the
// kernel tests and the MPI halo tests, with the name a test and a failing line give it.
#include <ostream>
#include <string>

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

}  // namespace dslash::test
