#pragma once
// One GPU per rank (a build with CUDA and MPI): each rank binds to GPU (local rank % GPUs on its
// node), the local rank from a shared-memory communicator (MPI_Comm_split_type), so ranks on one
// node spread over its GPUs and share them when there are more ranks than GPUs. Whether the MPI
// library can read device memory (CUDA-aware) is asked at run time and reported; the halo moves its
// messages GPU to GPU (CUDA IPC) between ranks of a node, else through page-locked host buffers
// (mpi/halo_dslash.hpp).
#include <mpi.h>

#include <string>

namespace dslash::mpi {

struct GpuBinding {
  int device = 0;        // this rank's GPU
  int devices = 0;       // GPUs this rank sees
  int local_rank = 0;    // among the ranks of its node
  int local_ranks = 1;
  int sharing = 1;       // ranks of this node on this rank's GPU
  bool cuda_aware = false;  // MPIX_Query_cuda_support where the library has it
  std::string describe() const;  // "GPU 0 of 1 (2 ranks share it); MPI not CUDA-aware"
};

// Collective. Binds this rank to its GPU. A rank that sees no GPU, or, with `exclusive` (one GPU per
// rank asked for), a node with more ranks than GPUs: a CollectiveError on every rank, in words.
GpuBinding bind_gpu(MPI_Comm comm, bool exclusive);

// True when the MPI library says it moves device buffers itself (Open MPI's mpi-ext.h); false where
// it says no or cannot say.
bool cuda_aware_mpi();

}  // namespace dslash::mpi
