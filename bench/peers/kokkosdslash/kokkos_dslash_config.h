#pragma once
/* Hand-written equivalent of KokkosDslash's include/kokkos_dslash_config.h.cmake.in as
   configured with: -DMG_USE_AVX512=ON -DMG_USE_AVX2=OFF -DMG_VECLEN_SP=8
   -DMG_KOKKOS_USE_NEIGHBOR_TABLE=OFF (computed neighbours; see BUILD.md) -DMG_DEFAULT_LOGLEVEL=INFO, no QDP++, no CUDA/HIP. */
#define MG_DEFAULT_LOGLEVEL INFO
#define MG_VECLEN_SP 8
#define MG_USE_AVX512 1
