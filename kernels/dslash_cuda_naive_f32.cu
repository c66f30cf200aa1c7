// The naive GPU kernel in single precision, in a translation unit of its own: it is compiled
// without the 128-register cap of dslash_cuda_f32.cu, because its team launch reads the links
// evict-first and holds them in 248 registers (kernels/dslash_body.hpp, for_each_site); capped, it
// spilled 152 bytes a thread.
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash<float, simd::SimtLane<float, 1>, false, Cuda>(const RunArgs<float>&);
}
