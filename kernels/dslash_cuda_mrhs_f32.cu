// The mrhs GPU kernel in single precision, in a translation unit of its own (kernels/CMakeLists.txt
// gives each family its register budget).
#include "kernels/cuda_runners.cuh"

namespace dslash::kernels {
template void run_dslash<float, MrhsLanes<float>, false, Cuda>(const RunArgs<float>&);
}
