#include "mpi/gpu_ranks.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "dslash/core/backend/cuda/space.hpp"
#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string GpuBinding::describe() const {
  return "GPU " + std::to_string(device) + " of " + std::to_string(devices) +
         (sharing > 1 ? " (" + std::to_string(sharing) + " ranks share it)" : "") + "; MPI " +
         (cuda_aware ? "CUDA-aware" : "not CUDA-aware");
}

GpuBinding bind_gpu(MPI_Comm comm, bool exclusive) {
  GpuBinding b;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &b.local_rank);
  MPI_Comm_size(node, &b.local_ranks);
  MPI_Comm_free(&node);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string why = cuda::unavailable_reason();
  agree(why.empty(), "--backend cuda: rank " + std::to_string(rank) + ": " + why, comm);
  cuda::check(cudaGetDeviceCount(&b.devices), "cudaGetDeviceCount");
  agree(!exclusive || b.local_ranks <= b.devices,
        "--gpu-per-rank: " + std::to_string(b.local_ranks) + " ranks on rank " + std::to_string(rank) + "'s node but " +
            std::to_string(b.devices) + " GPU(s): start at most as many ranks per node as it has GPUs, or drop --gpu-per-rank to share them",
        comm);
  b.device = b.local_rank % b.devices;
  b.sharing = (b.local_ranks - 1 - b.device) / b.devices + 1;  // local ranks d, d + n, d + 2n, ...
  std::string failed;
  try {
    cuda::check(cudaSetDevice(b.device), "cudaSetDevice");
  } catch (const std::exception& e) {
    failed = e.what();
  }
  agree(failed.empty(), failed, comm);
  b.cuda_aware = cuda_aware_mpi();
  return b;
}

}  // namespace dslash::mpi
