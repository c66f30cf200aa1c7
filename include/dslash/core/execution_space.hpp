#pragma once
// Execution spaces: where a parallel pattern runs. A policy names its space; each space has its
// own backend header (core/backend/<space>.hpp) with one specialisation per (pattern x policy).
#include <omp.h>

namespace dslash {

struct Serial {
  static constexpr const char* name = "serial";
  static int concurrency() { return 1; }
};

struct OpenMP {
  static constexpr const char* name = "openmp";
  static int concurrency() { return omp_get_max_threads(); }
};

using DefaultExecutionSpace = OpenMP;

}  // namespace dslash
