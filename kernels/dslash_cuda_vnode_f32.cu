// The vnode GPU kernel in single precision, in a translation unit of its own so that its register
// cap (DSLASH_CUDA_VNODE_F32_MAXRREG, kernels/CMakeLists.txt) can differ from mrhs's 128: uncapped
// (ptxas, sm_90) its team kernel takes 168 registers and its range kernel 224, none spilling, where
// at 128 they spilled 92 and 112 bytes a thread.
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash<float, simd::SimtLane<float, simd::kSimtLanes<float>>, true, Cuda>(const RunArgs<float>&);
}
