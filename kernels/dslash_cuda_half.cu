// The GPU kernels in half precision storage (16-bit codes, float arithmetic), every family, in a
// translation unit of their own beside single's and double's.
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash_half<simd::SimtLane<float, 1>, false, Cuda>(const RunArgs<float>&);
template void run_dslash_half<simd::SimtLane<float, simd::kSimtLanes<float>>, false, Cuda>(const RunArgs<float>&);
template void run_dslash_half<simd::SimtLane<float, simd::kSimtLanes<float>>, true, Cuda>(const RunArgs<float>&);
}  // namespace dslash::kernels
