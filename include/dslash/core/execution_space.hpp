#pragma once
// Execution spaces: where a parallel pattern runs. A policy names its space; each space has its
// own backend header (core/backend/<space>.hpp, or a folder: core/backend/cuda/) with one
// specialisation per (pattern x policy).
#include <omp.h>

namespace dslash {

struct Serial {
  static constexpr const char* name = "serial";
  static constexpr int max_team_size = 1;  // one thread, so teams of one
  static int concurrency() { return 1; }
  static void fence() {}  // a pattern has finished when it returns
};

struct OpenMP {
  static constexpr const char* name = "openmp";
  static constexpr int max_team_size = 256;  // teams may oversubscribe cores
  static int concurrency() { return omp_get_max_threads(); }
  static void fence() {}  // a parallel region has finished when it returns
};

using DefaultExecutionSpace = OpenMP;

}  // namespace dslash
