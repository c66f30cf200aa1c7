// The GPU kernels in double precision (kernels/cuda_runners.cuh).
#include "kernels/cuda_runners.cuh"

namespace dslash {
template RunnerTable<double> cuda_runners<double>();
template ProbeTable<double> cuda_probes<double>();
}
