// The solvers on the host (OpenMP): solvers/instantiate.hpp.
#include "solvers/instantiate.hpp"

namespace dslash {
DSLASH_INSTANTIATE_SOLVERS(HostSpace)
}
