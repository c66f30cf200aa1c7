#pragma once
// CUDA backend: the parallel patterns on the GPU (include only from .cu files, compiled by nvcc).
//   RangePolicy    blocks of vector_length x rows threads, one index per threadIdx.y row; the block
//                  size keeps the most of the kernel's threads resident, in blocks small enough that
//                  an SM holds several (resident_block)
//   TeamPolicy     one block per team: threadIdx.y is the team rank, threadIdx.x the vector lane
//   MDRangePolicy  one block per tile; the block's rows walk the tile's points, dimension 0 fastest
// Every lane of an index calls f with that index (simd/simt.hpp: the lane is threadIdx.x). Launches
// go to the thread's current stream (cuda::StreamScope) and are asynchronous (Cuda::fence() waits); a
// launch the GPU refuses throws at once. Reductions sum each block in shared memory in a fixed tree;
// the last block to finish joins the block partials in block order and writes the one value to the
// host (and the call waits for it), or, into memory (ReduceInto), to device memory and its host copy
// (and the call returns at once): the same launch shape gives bitwise the same sum. A range reduction launches only the blocks
// the GPU holds at once, each thread striding over the range (one index per thread made 50k partials
// at 32^4).
#include <algorithm>
#include <array>
#include <complex>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "dslash/core/backend/cuda/space.hpp"
#include "dslash/core/reducer.hpp"
#include "dslash/core/team.hpp"

namespace dslash::backend {

namespace cuda_detail {

inline constexpr int kRangeThreads = 256;  // threads per block of a reduction, which leaves a partial a block (a range reduction: at least this many)
inline constexpr int kMaxThreads = 1024;   // per block, every GPU since Fermi

inline void check_launch(const char* what) { cuda::check(cudaGetLastError(), what); }

inline dim3 block_of(int vector_length, int rows, const char* what) {
  if (vector_length * rows > kMaxThreads)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows) + " threads x vector length " + std::to_string(vector_length) +
                                " exceed the GPU's " + std::to_string(kMaxThreads) + " threads per block");
  return dim3(static_cast<unsigned>(vector_length), static_cast<unsigned>(rows), 1);
}

inline unsigned grid_of(index_t blocks, const char* what) {
  if (blocks > 0x7fffffff) throw std::invalid_argument(std::string(what) + ": more than 2^31 - 1 blocks");
  return static_cast<unsigned>(blocks);
}

// Rows of a tile reduction: whole blocks of kRangeThreads threads, at least one row.
inline int tile_reduce_rows(int vector_length) { return std::max(1, kRangeThreads / vector_length); }

// The most threads a block of `kernel` may have: fewer than 1024 when its registers run out first.
// A team that asks for more is refused in words, not by the GPU's "too many resources" at launch.
template <class Kernel>
int max_block_threads(Kernel kernel) {
  static const int most = [&] {
    cudaFuncAttributes attributes{};
    cuda::check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
    return attributes.maxThreadsPerBlock;
  }();
  return most;
}

// The block of a range launch of `kernel`, found once per kernel: of the sizes (whole warps, at
// least `floor` threads) that keep the most of its threads resident on an SM, the smallest that an
// SM holds at most 8 of. Few blocks an SM cost a heavy kernel (the occupancy calculator's choice,
// the largest of the sizes that tie, left each SM idle on its one block's slowest warp); many cost a
// light one, the solver's fills and conversions (docs/history/HISTORY.md, "Launch blocks that an SM
// holds several of").
struct ResidentBlock {
  int threads = 0;  // a block
  int per_sm = 0;   // blocks an SM holds
};
template <class Kernel>
ResidentBlock resident_block(Kernel kernel, int floor) {
  constexpr int kWarp = 32, kMostBlocksPerSm = 8;
  std::vector<ResidentBlock> sizes;
  int most_resident = 0;
  for (int threads = floor; threads <= max_block_threads(kernel); threads += kWarp) {
    int blocks = 0;
    cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    sizes.push_back({threads, blocks});
    most_resident = std::max(most_resident, threads * blocks);
  }
  if (most_resident == 0) throw std::invalid_argument("a CUDA kernel that fits no block of " + std::to_string(floor) + " threads on an SM");
  ResidentBlock chosen;
  for (const ResidentBlock& b : sizes)
    if (b.threads * b.per_sm == most_resident && (chosen.threads == 0 || chosen.per_sm > kMostBlocksPerSm)) chosen = b;
  return chosen;
}

// Rows of a range launch of `kernel`.
template <class Kernel>
int range_launch_rows(Kernel kernel, int vector_length) {
  static const int block = resident_block(kernel, 64).threads;
  return std::max(1, block / vector_length);
}

// Rows of a tile launch of `kernel`: a block a tile, so the tiles set the blocks, and a smaller
// block is less work in flight: the occupancy calculator's choice, the largest block of the most
// resident threads.
template <class Kernel>
int tile_launch_rows(Kernel kernel, int vector_length) {
  static const int block = [&] {
    int min_grid = 0, threads = 0;
    cuda::check(cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads, kernel, 0, kMaxThreads), "cudaOccupancyMaxPotentialBlockSize");
    return threads;
  }();
  return std::max(1, block / vector_length);
}

// A range kernel's grid covers the range: `if (i < end) f(i)`. A translation unit that defines
// DSLASH_CUDA_RANGE_LOOP gets the same grid with each thread in a loop striding by the grid, which
// runs once: ptxas allocates the heavy bodies' registers differently in a loop, and which form is
// faster is measured per unit (kernels/CMakeLists.txt), as the register caps are. The two forms
// never meet in one program for the same functor: a unit's range functors are the Dslash bodies it
// alone instantiates, and its probes live in an unnamed namespace (kernels/cuda_runners.cuh).
template <class F>
__global__ void range_for(F f, index_t begin, index_t end) {
#ifdef DSLASH_CUDA_RANGE_LOOP
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.y;
  for (index_t i = begin + static_cast<index_t>(blockIdx.x) * blockDim.y + threadIdx.y; i < end; i += stride) f(i);
#else
  const index_t i = begin + static_cast<index_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (i < end) f(i);
#endif
}

template <class F>
__global__ void team_for(F f, index_t league_size) {
  f(TeamMember(blockIdx.x, league_size, static_cast<int>(threadIdx.y), static_cast<int>(blockDim.y), static_cast<int>(blockDim.x), nullptr));
}

// This block's rows walk the points of tile blockIdx.x (dimension 0 fastest): point(i0, ..., iR-1).
template <int Rank, class Point>
__device__ inline void for_tile_points(const MDRangePolicy<Rank, Cuda>& p, const Point& point) {
  std::array<index_t, Rank> lo, hi;
  p.tile_bounds(blockIdx.x, lo, hi);
  index_t points = 1;
  for (int r = 0; r < Rank; ++r) points *= hi[r] - lo[r];
  for (index_t k = threadIdx.y; k < points; k += blockDim.y) {
    std::array<index_t, Rank> x;
    for (index_t rest = k, r = 0; r < Rank; ++r) {
      x[r] = lo[r] + rest % (hi[r] - lo[r]);
      rest /= hi[r] - lo[r];
    }
    [&]<std::size_t... R>(std::index_sequence<R...>) { point(x[R]...); }(std::make_index_sequence<Rank>{});
  }
}

template <int Rank, class F>
__global__ void mdrange_for(F f, MDRangePolicy<Rank, Cuda> p) {
  for_tile_points(p, [&](auto... i) { f(i...); });
}

// Where a reduction's blocks leave their sums: one partial per block, the count of blocks done, and
// the total: in page-locked host memory that the device writes through its mapping (one launch a
// reduction: no join kernel, no copy back), or for a
// reduction into memory (ReduceInto) in device memory, and its host copy where one is asked for.
template <class T>
struct ReduceTarget {
  T* partials;
  unsigned* blocks_done;
  T* total;
  T* total_copy = nullptr;
};

// The block's sum, in thread 0: the threads add their values in shared memory, halving each step.
template <class T>
__device__ T block_sum(T local) {
  extern __shared__ unsigned char shared_bytes[];
  T* s = reinterpret_cast<T*>(shared_bytes);
  const unsigned n = blockDim.x * blockDim.y, t = threadIdx.y * blockDim.x + threadIdx.x;
  s[t] = local;
  __syncthreads();
  for (unsigned half = 1; half < n; half *= 2) {
    if (t % (2 * half) == 0 && t + half < n) Sum<T>::join(s[t], s[t + half]);
    __syncthreads();
  }
  const T sum = s[0];
  __syncthreads();  // s is free again
  return sum;
}

// Another block's partial, read from L2 (where its __threadfence put it), never from a stale L1 line.
template <class T>
__device__ T load_from_l2(const T* p) {
  static_assert(sizeof(T) % sizeof(unsigned) == 0 && alignof(T) >= alignof(unsigned), "CUDA reductions sum types made of 4-byte words");
  T value;
  const auto* from = reinterpret_cast<const unsigned*>(p);
  auto* to = reinterpret_cast<unsigned*>(&value);
  for (unsigned w = 0; w < sizeof(T) / sizeof(unsigned); ++w) to[w] = __ldcg(from + w);
  return value;
}

// Every block stores its sum; the last block to finish joins the partials in block order (the same
// order whichever block is last) and writes the total to the host.
template <class T>
__device__ void finish_reduction(T local, const ReduceTarget<T>& target) {
  __shared__ bool last;
  const unsigned n = blockDim.x * blockDim.y, t = threadIdx.y * blockDim.x + threadIdx.x;
  const T sum = block_sum(local);
  if (t == 0) {
    target.partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible to every block before the count says it is there
    last = atomicInc(target.blocks_done, gridDim.x - 1) == gridDim.x - 1;  // the last wraps it to 0
  }
  __syncthreads();
  if (!last) return;
  T joined = Sum<T>::identity();
  for (unsigned i = t; i < gridDim.x; i += n) Sum<T>::join(joined, load_from_l2(target.partials + i));
  const T total = block_sum(joined);
  if (t == 0) {
    *target.total = total;
    if (target.total_copy != nullptr) *target.total_copy = total;
  }
}

template <class T, class F>
__global__ void range_reduce(F f, index_t begin, index_t end, ReduceTarget<T> target) {
  T local = Sum<T>::identity();
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.y;
  for (index_t i = begin + static_cast<index_t>(blockIdx.x) * blockDim.y + threadIdx.y; i < end; i += stride) f(i, local);
  finish_reduction(local, target);
}

template <class T, class F>
__global__ void team_reduce(F f, index_t league_size, ReduceTarget<T> target) {
  T local = Sum<T>::identity();
  f(TeamMember(blockIdx.x, league_size, static_cast<int>(threadIdx.y), static_cast<int>(blockDim.y), static_cast<int>(blockDim.x), nullptr), local);
  finish_reduction(local, target);
}

template <int Rank, class T, class F>
__global__ void mdrange_reduce(F f, MDRangePolicy<Rank, Cuda> p, ReduceTarget<T> target) {
  T local = Sum<T>::identity();
  for_tile_points(p, [&](auto... i) { f(i..., local); });
  finish_reduction(local, target);
}

// Device memory for the partials and the block count, and page-locked host memory for the total,
// kept between reductions (a cudaMalloc / cudaFree pair per reduction synchronised the device and
// cost more than the sum). One per host thread and stream: a reduction that returns before its total
// is in (ReduceInto) may still be running when the thread launches one on another stream. Freed when
// its cuda::Stream ends on that thread (cudaFree waits for the device), else at the thread's exit.
// Each starts at a size that every reduction of the solvers fits (1 MiB holds 24-byte partials of
// 43 K blocks): regrowing it for a wider sum type would stall a solve on the free and the
// page-locked allocation.
class ReduceScratch {
 public:
  static constexpr std::size_t kDeviceBytes = std::size_t{1} << 20, kHostBytes = 4096;
  static ReduceScratch& of(cudaStream_t stream) {
    static const bool hooked = (cuda::stream_end_hook().store(&forget), true);  // once, not on every reduction
    (void)hooked;
    for (auto& [s, r] : list())
      if (s == stream) return *r;
    return *list().emplace_back(stream, std::make_unique<ReduceScratch>()).second;
  }
  ReduceScratch() = default;
  ReduceScratch(const ReduceScratch&) = delete;
  ReduceScratch& operator=(const ReduceScratch&) = delete;
  ~ReduceScratch() {  // (unchecked: at exit the runtime may be gone before the thread's list)
    if (device_) cudaFree(device_);
    if (blocks_done_) cudaFree(blocks_done_);
  }
  template <class T>
  ReduceTarget<T> target(unsigned blocks) {
    const std::size_t bytes = blocks * sizeof(T);
    if (bytes > device_bytes_) {
      if (device_) cuda::check(cudaFree(device_), "cudaFree (reduction scratch)");
      device_bytes_ = std::max(bytes, kDeviceBytes);
      device_ = CudaSpace::allocate(device_bytes_);
    }
    if (!blocks_done_) {
      blocks_done_ = static_cast<unsigned*>(CudaSpace::allocate(sizeof(unsigned)));
      cuda::check(cudaMemset(blocks_done_, 0, sizeof(unsigned)), "cudaMemset (reduction block count)");
    }
    if (sizeof(T) > host_.bytes()) host_ = cuda::MappedHostBuffer(std::max(sizeof(T), kHostBytes));
    return {static_cast<T*>(device_), blocks_done_, static_cast<T*>(host_.on_device())};
  }
  static std::size_t held() { return list().size(); }  // scratches this thread keeps, for the tests
  template <class T>
  T total() const {
    return *static_cast<const T*>(host_.get());
  }

 private:
  using List = std::vector<std::pair<cudaStream_t, std::unique_ptr<ReduceScratch>>>;  // a stream or two: a list
  static List& list() {
    thread_local List scratch;
    return scratch;
  }
  static void forget(cudaStream_t stream) { std::erase_if(list(), [&](const auto& entry) { return entry.first == stream; }); }

  void* device_ = nullptr;
  cuda::MappedHostBuffer host_;
  unsigned* blocks_done_ = nullptr;
  std::size_t device_bytes_ = 0;
};

// Runs launch(target, shared bytes) over `blocks` blocks of `threads` threads and returns the sum.
template <class T, class Launch>
T reduce_blocks(unsigned blocks, unsigned threads, const Launch& launch) {
  static_assert(std::is_trivially_copyable_v<T>, "CUDA reductions need a trivially copyable result type");
  if (blocks == 0) return Sum<T>::identity();
  ReduceScratch& scratch = ReduceScratch::of(cuda::current_stream());
  launch(scratch.target<T>(blocks), static_cast<std::size_t>(threads) * sizeof(T));
  check_launch("parallel_reduce launch");
  cuda::check(cudaStreamSynchronize(cuda::current_stream()), "cudaStreamSynchronize (a reduction failed)");
  return scratch.total<T>();
}

template <class T>
__global__ void write_identity(ReduceInto<T> into) {
  *into.device = Sum<T>::identity();
  if (into.host != nullptr) *into.host = Sum<T>::identity();
}

// The same into memory (ReduceInto), returning at once.
template <class T, class Launch>
void reduce_blocks_into(unsigned blocks, unsigned threads, const Launch& launch, const ReduceInto<T>& into) {
  static_assert(std::is_trivially_copyable_v<T>, "CUDA reductions need a trivially copyable result type");
  if (blocks == 0) {
    write_identity<T><<<1, 1, 0, cuda::current_stream()>>>(into);
  } else {
    ReduceTarget<T> target = ReduceScratch::of(cuda::current_stream()).target<T>(blocks);
    target.total = into.device;
    target.total_copy = into.host;
    launch(target, static_cast<std::size_t>(threads) * sizeof(T));
  }
  check_launch("parallel_reduce launch");
}

}  // namespace cuda_detail

template <class F>
void parallel_for(const RangePolicy<Cuda>& p, const F& f) {
  const index_t n = p.end() - p.begin();
  if (n == 0) return;
  const int rows = cuda_detail::range_launch_rows(cuda_detail::range_for<F>, p.vector_length());
  const dim3 block = cuda_detail::block_of(p.vector_length(), rows, "RangePolicy on cuda");
  cuda_detail::range_for<<<cuda_detail::grid_of((n + rows - 1) / rows, "RangePolicy on cuda"), block, 0, cuda::current_stream()>>>(f, p.begin(), p.end());
  cuda_detail::check_launch("parallel_for(RangePolicy<Cuda>) launch");
}

template <class F>
void parallel_for(const TeamPolicy<Cuda>& p, const F& f) {
  if (p.league_size() == 0) return;
  const dim3 block = cuda_detail::block_of(p.vector_length(), p.team_size(), "TeamPolicy on cuda");
  if (const int most = cuda_detail::max_block_threads(cuda_detail::team_for<F>); p.team_size() * p.vector_length() > most)
    throw std::invalid_argument("TeamPolicy on cuda: " + std::to_string(p.team_size()) + " threads x vector length " +
                                std::to_string(p.vector_length()) + " exceed the " + std::to_string(most) +
                                " threads a block of this kernel can have (its registers run out)");
  cuda_detail::team_for<<<cuda_detail::grid_of(p.league_size(), "TeamPolicy on cuda"), block, 0, cuda::current_stream()>>>(f, p.league_size());
  cuda_detail::check_launch("parallel_for(TeamPolicy<Cuda>) launch");
}

template <int Rank, class F>
void parallel_for(const MDRangePolicy<Rank, Cuda>& p, const F& f) {
  if (p.num_tiles() == 0 || p.tile_points() == 0) return;
  const int rows = static_cast<int>(std::min<index_t>(p.tile_points(), cuda_detail::tile_launch_rows(cuda_detail::mdrange_for<Rank, F>, p.vector_length())));
  const dim3 block = cuda_detail::block_of(p.vector_length(), rows, "MDRangePolicy on cuda");
  cuda_detail::mdrange_for<Rank><<<cuda_detail::grid_of(p.num_tiles(), "MDRangePolicy on cuda"), block, 0, cuda::current_stream()>>>(f, p);
  cuda_detail::check_launch("parallel_for(MDRangePolicy<Cuda>) launch");
}

namespace cuda_detail {

template <class T>
inline constexpr bool is_std_complex = false;
template <class T>
inline constexpr bool is_std_complex<std::complex<T>> = true;
// nvcc compiles std::complex's operators in device code to nothing (the sum comes back zero), so a
// complex sum travels as its (re, im) parts.
template <class T>
inline constexpr bool reducible_on_gpu = !is_std_complex<T>;
template <class T, std::size_t N>
inline constexpr bool reducible_on_gpu<std::array<T, N>> = reducible_on_gpu<T>;

// Each pattern's reduction kernel over its launch shape, handed to finish(blocks, threads, launch):
// reduce_blocks, which waits for the sum, or reduce_blocks_into, which does not.
template <class T, class F, class Finish>
void reduction(const RangePolicy<Cuda>& p, const F& f, const Finish& finish) {
  const index_t n = p.end() - p.begin();
  // Blocks of at least 256 threads (a partial each, which the last block joins), as many as the
  // GPU holds at once, so a Dslash with its sum (CG's fused last pass) runs in one wave, not as
  // many as full occupancy would need (docs/history/HISTORY.md, "Launch blocks that an SM holds several of").
  static const ResidentBlock shape = resident_block(range_reduce<T, F>, kRangeThreads);
  static const index_t resident = static_cast<index_t>(shape.per_sm) * Cuda::multiprocessors();
  const int rows = std::max(1, shape.threads / p.vector_length());
  const dim3 block = block_of(p.vector_length(), rows, "RangePolicy on cuda");
  const unsigned blocks = grid_of(std::min<index_t>((n + rows - 1) / rows, resident), "RangePolicy on cuda");
  finish(blocks, block.x * block.y, [&](ReduceTarget<T> target, std::size_t shared) {
    range_reduce<T><<<blocks, block, shared, cuda::current_stream()>>>(f, p.begin(), p.end(), target);
  });
}

template <class T, class F, class Finish>
void reduction(const TeamPolicy<Cuda>& p, const F& f, const Finish& finish) {
  const dim3 block = block_of(p.vector_length(), p.team_size(), "TeamPolicy on cuda");
  const unsigned blocks = grid_of(p.league_size(), "TeamPolicy on cuda");
  finish(blocks, block.x * block.y, [&](ReduceTarget<T> target, std::size_t shared) {
    team_reduce<T><<<blocks, block, shared, cuda::current_stream()>>>(f, p.league_size(), target);
  });
}

template <class T, int Rank, class F, class Finish>
void reduction(const MDRangePolicy<Rank, Cuda>& p, const F& f, const Finish& finish) {
  const int rows = static_cast<int>(std::max<index_t>(1, std::min<index_t>(p.tile_points(), tile_reduce_rows(p.vector_length()))));
  const dim3 block = block_of(p.vector_length(), rows, "MDRangePolicy on cuda");
  const unsigned blocks = p.tile_points() == 0 ? 0 : grid_of(p.num_tiles(), "MDRangePolicy on cuda");
  finish(blocks, block.x * block.y, [&](ReduceTarget<T> target, std::size_t shared) {
    mdrange_reduce<Rank, T><<<blocks, block, shared, cuda::current_stream()>>>(f, p, target);
  });
}

}  // namespace cuda_detail

template <class Policy, class F, class T>
  requires std::is_same_v<typename Policy::execution_space, Cuda>
void parallel_reduce(const Policy& p, const F& f, T& result) {
  static_assert(cuda_detail::reducible_on_gpu<T>, "a GPU reduction cannot sum std::complex: sum a std::array<double, 2> of (re, im)");
  cuda_detail::reduction<T>(p, f, [&](unsigned blocks, unsigned threads, const auto& launch) { result = cuda_detail::reduce_blocks<T>(blocks, threads, launch); });
}

template <class Policy, class F, class T>
  requires std::is_same_v<typename Policy::execution_space, Cuda>
void parallel_reduce_into(const Policy& p, const F& f, const ReduceInto<T>& into) {
  static_assert(cuda_detail::reducible_on_gpu<T>, "a GPU reduction cannot sum std::complex: sum a std::array<double, 2> of (re, im)");
  cuda_detail::reduction<T>(p, f, [&](unsigned blocks, unsigned threads, const auto& launch) { cuda_detail::reduce_blocks_into<T>(blocks, threads, launch, into); });
}

}  // namespace dslash::backend
