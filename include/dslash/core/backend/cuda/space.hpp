#pragma once
// The CUDA backend's spaces, in plain C++ over the CUDA runtime API (any host compiler):
//   Cuda       the execution space: kernels on the current GPU, asynchronous to the host as Kokkos's
//              are; fence() waits for them. They go to the calling thread's current stream: the
//              default stream, or the one a cuda::StreamScope names (the MPI halo runs the interior
//              and the faces on two streams at once)
//   CudaSpace  the memory space: device memory from cudaMalloc, never touched by the host
// The parallel patterns themselves (core/backend/cuda/parallel.hpp) need nvcc.
// Every CUDA runtime error becomes a std::runtime_error naming the call and the runtime's message.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace dslash {

namespace cuda {

inline void check(cudaError_t err, const char* call) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + call + ": " + cudaGetErrorString(err));
}

// What a run header says about the GPU.
struct DeviceInfo {
  std::string name;
  int multiprocessors = 0, compute_major = 0, compute_minor = 0, driver_version = 0, runtime_version = 0;
  std::size_t memory_bytes = 0, l2_bytes = 0;
  int max_threads_per_block = 0, max_threads_per_multiprocessor = 0;
};

// Empty if a GPU can be used, else the reason in words ("no CUDA device: ...").
inline std::string unavailable_reason() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error for later callers
    return std::string("no usable CUDA device (no GPU or no NVIDIA driver here; the CUDA runtime says: ") + cudaGetErrorString(err) + ")";
  }
  return n > 0 ? std::string() : std::string("no CUDA device found");
}

inline DeviceInfo device_info() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  DeviceInfo d;
  d.name = p.name;
  d.multiprocessors = p.multiProcessorCount;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  check(cudaDriverGetVersion(&d.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&d.runtime_version), "cudaRuntimeGetVersion");
  return d;
}

// Device memory that is free now, in bytes.
inline std::size_t free_memory() {
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return free;
}

// GPU time between two points of the default stream, from CUDA events (what a kernel took, without
// the launch latency a host clock adds).
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { check(cudaEventRecord(start_), "cudaEventRecord"); }
  // Waits for the work since start() and returns its seconds.
  double stop() {
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// The stream this host thread launches on (nullptr: the default stream).
inline cudaStream_t& current_stream() {
  thread_local cudaStream_t stream = nullptr;
  return stream;
}

// Launches inside the scope go to `stream`; the previous stream is restored at its end.
class StreamScope {
 public:
  explicit StreamScope(cudaStream_t stream) : previous_(current_stream()) { current_stream() = stream; }
  ~StreamScope() { current_stream() = previous_; }
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  cudaStream_t previous_;
};

// What the backend keeps per stream and host thread (the reductions' scratch, cuda/parallel.hpp)
// sets here how to drop it; a Stream's end calls it on the thread that ends it. One hook, atomic:
// it is set once, maybe while another thread ends a stream.
inline std::atomic<void (*)(cudaStream_t)>& stream_end_hook() {
  static std::atomic<void (*)(cudaStream_t)> hook{nullptr};
  return hook;
}

// An owned stream. Blocking (it waits for the default stream, as cudaMemcpy's copies there), at a
// priority: high lets short face kernels start ahead of a long interior kernel's remaining blocks.
class Stream {
 public:
  explicit Stream(bool high_priority = false) {
    int least = 0, greatest = 0;
    check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    check(cudaStreamCreateWithPriority(&stream_, cudaStreamDefault, high_priority ? greatest : least), "cudaStreamCreateWithPriority");
  }
  ~Stream() {
    if (auto* hook = stream_end_hook().load()) hook(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (a kernel failed)"); }

 private:
  cudaStream_t stream_{};
};

// An event for ordering streams and timing them.
class Event {
 public:
  Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  void synchronize() const { check(cudaEventSynchronize(event_), "cudaEventSynchronize (a kernel failed)"); }
  // Seconds from `start` to this event, both recorded and complete.
  double since(const Event& start) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t event_{};
};

// Page-locks host memory the caller allocated (page-aligned): copies from and to it are true DMA
// and can run asynchronously on a stream. Unregisters at the end of its life.
class PinnedRegion {
 public:
  PinnedRegion(void* p, std::size_t bytes) : p_(bytes > 0 ? p : nullptr) {
    if (p_) check(cudaHostRegister(p_, bytes, cudaHostRegisterDefault), "cudaHostRegister");
  }
  ~PinnedRegion() {
    if (p_) cudaHostUnregister(p_);
  }
  PinnedRegion(const PinnedRegion&) = delete;
  PinnedRegion& operator=(const PinnedRegion&) = delete;

 private:
  void* p_;
};

// Page-locked host memory that kernels write through its mapping: a total lands there without a
// copy, and the host reads it after a fence. Movable, freed at the end of its life.
class MappedHostBuffer {
 public:
  MappedHostBuffer() = default;
  explicit MappedHostBuffer(std::size_t bytes) : bytes_(bytes) {
    check(cudaHostAlloc(&host_, bytes, cudaHostAllocMapped), "cudaHostAlloc (mapped)");
    check(cudaHostGetDevicePointer(&device_, host_, 0), "cudaHostGetDevicePointer");
  }
  ~MappedHostBuffer() {
    if (host_) cudaFreeHost(host_);
  }
  MappedHostBuffer(MappedHostBuffer&& o) noexcept : host_(std::exchange(o.host_, nullptr)), device_(std::exchange(o.device_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  MappedHostBuffer& operator=(MappedHostBuffer&& o) noexcept {
    std::swap(host_, o.host_);
    std::swap(device_, o.device_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  void* get() const { return host_; }             // for the host
  void* on_device() const { return device_; }     // the same bytes, for kernels
  std::size_t bytes() const { return bytes_; }

 private:
  void *host_ = nullptr, *device_ = nullptr;
  std::size_t bytes_ = 0;
};

// Copies `bytes` between host and device (unified addressing tells the direction) on `stream`, asynchronously.
inline void copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
}

}  // namespace cuda

struct Cuda {
  static constexpr const char* name = "cuda";
  static constexpr int max_team_size = 1024;  // threads per block; with a vector length, the product
  // Threads the GPU keeps resident at once.
  static int concurrency() { return multiprocessors() * attribute(cudaDevAttrMaxThreadsPerMultiProcessor); }
  static int multiprocessors() { return attribute(cudaDevAttrMultiProcessorCount); }
  // Waits for every kernel launched so far; a kernel's own fault surfaces here.
  static void fence() { cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (a kernel failed)"); }

 private:
  // One fact of the current device (an attribute query: cudaGetDeviceProperties takes milliseconds).
  static int attribute(cudaDeviceAttr what) {
    int dev = 0, value = 0;
    cuda::check(cudaGetDevice(&dev), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&value, what, dev), "cudaDeviceGetAttribute");
    return value;
  }
};

struct CudaSpace {
  static constexpr const char* name = "cuda";
  static constexpr bool host_accessible = false;
  using execution_space = Cuda;

  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      std::size_t free = 0, total = 0;
      cudaMemGetInfo(&free, &total);
      throw std::length_error("device memory: cannot allocate " + std::to_string(bytes >> 20) + " MiB (" + std::to_string(free >> 20) +
                              " MiB free of " + std::to_string(total >> 20) + ")");
    }
    cuda::check(err, "cudaMalloc");
    cuda::check(cudaMemset(p, 0, bytes), "cudaMemset");  // Views start zeroed, as on the host
    return p;
  }
  static void deallocate(void* p) noexcept { cudaFree(p); }
  static std::size_t available_bytes() { return cuda::free_memory(); }
  // A copy with at least one side in device memory (unified addressing tells the direction).
  static void copy(void* dst, const void* src, std::size_t bytes) { cuda::check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy"); }
};

}  // namespace dslash
