#pragma once
// The options of `dslash bench`, shared by the single-process run (cmd_bench.cpp) and the MPI run
// (cmd_bench_mpi.cpp).
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace dslash::cli {

struct BenchOptions {
  Coord dims{32, 32, 32, 32};
  std::string kernel = "all", dispatch = "all", prec = "single", simd = "auto", tile, team_size, parity = "even", layout = "right", json;
  int nrhs = 0, threads = 0, iters = 10, warmup = 2;
  bool dagger = false, check = false, csv = false;
  std::uint64_t seed = 1;
  MpiOptions mpi;
};

// "all" -> every name; anything else -> itself.
inline std::vector<std::string> expand(const std::string& value, std::initializer_list<const char*> all) {
  if (value != "all") return {value};
  return {all.begin(), all.end()};
}

inline const char* env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "unset";
}

// The MPI run of `dslash bench` (only in a build with MPI): exit status as run_bench's.
int run_bench_mpi(const BenchOptions& o);

}  // namespace dslash::cli
