#pragma once
// Function qualifiers that let one source compile for the host and, under nvcc, for the GPU.
//   DSLASH_INLINE_FUNCTION  a function a kernel body may call on either side
//   DSLASH_FORCE_INLINE     the same, always inlined (measured where it is used)
//   DSLASH_LAMBDA           a by-value lambda a parallel pattern may run on either side
#if defined(__CUDACC__)
#define DSLASH_INLINE_FUNCTION __host__ __device__ inline
#define DSLASH_FORCE_INLINE __host__ __device__ __forceinline__
#define DSLASH_LAMBDA [=] __host__ __device__
#else
#define DSLASH_INLINE_FUNCTION inline
#define DSLASH_FORCE_INLINE [[gnu::always_inline]] inline
#define DSLASH_LAMBDA [=]
#endif

// True while compiling GPU code (the device pass of nvcc).
#if defined(__CUDA_ARCH__)
#define DSLASH_ON_DEVICE 1
#else
#define DSLASH_ON_DEVICE 0
#endif
