// The vnode GPU kernel in single precision, in a translation unit of its own so that its register
// cap (DSLASH_CUDA_VNODE_F32_MAXRREG, kernels/CMakeLists.txt) can differ from mrhs's: the 128 of
// dslash_cuda_f32.cu cost vnode's team launch 12% when it came and gave its range launches 12%
// (af58c11, H100), and uncapped (ptxas, sm_90) its team kernel needs 168 registers, its range
// kernels 220-224, none spilling, where at 128 they spill 92 and 192 bytes a thread.
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash<float, simd::SimtLane<float, simd::kSimtLanes<float>>, true, Cuda>(const RunArgs<float>&);
}
