// The solvers on the GPU: vectors in device memory, BLAS loops and reductions as GPU kernels
// (solvers/instantiate.hpp).
#include "dslash/core/backend/cuda/space.hpp"
// keep this order
#include "solvers/instantiate.hpp"

namespace dslash {
DSLASH_INSTANTIATE_SOLVERS(CudaSpace)
}
