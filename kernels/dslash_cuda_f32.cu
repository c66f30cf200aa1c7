// The GPU kernels in single precision (kernels/cuda_runners.cuh).
#include "kernels/cuda_runners.cuh"

namespace dslash {
template RunnerTable<float> cuda_runners<float>();
template ProbeTable<float> cuda_probes<float>();
}
