// The naive GPU kernel in double precision, in a translation unit of its own so that it compiles
// beside the other families' (kernels/cuda_runners.cuh).
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash<double, simd::SimtLane<double, 1>, false, Cuda>(const RunArgs<double>&);
}
