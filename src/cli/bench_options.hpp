#pragma once
// The options of `dslash bench`, shared by the single-process run (cmd_bench.cpp) and the MPI run
// (cmd_bench_mpi.cpp).
#include <cstdint>
#include <cstdio>
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
  bool dagger = false, check = false, csv = false, traffic = false;
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

// The launch configuration of one variant (kernel x dispatch) from the options; the caller adds
// the launch shape. mrhs takes --nrhs, or one right-hand side per SIMD lane.
inline DslashConfig variant_config(const BenchOptions& o, const std::string& kernel, const std::string& dispatch, SimdIsa isa,
                                   int bytes_per_real) {
  DslashConfig cfg;
  cfg.kernel = parse_kernel(kernel);
  cfg.dispatch = parse_dispatch(dispatch);
  cfg.isa = isa;
  cfg.out = o.parity == "full" ? Subset::Full : o.parity == "even" ? Subset::Even : Subset::Odd;
  cfg.dagger = o.dagger;
  cfg.layout = parse_layout(o.layout);
  cfg.nrhs = cfg.kernel == KernelFamily::Mrhs ? (o.nrhs > 0 ? o.nrhs : simd_lanes(isa, bytes_per_real)) : 1;
  return cfg;
}

// One stderr line per variant that failed --check, and the exit status: 1 if any failed.
template <class Result>
int report_checks(const std::vector<Result>& results, bool check, const std::string& where = "") {
  int failures = 0;
  for (const auto& r : results)
    if (r.checked && !r.check_passed) {
      std::fprintf(stderr, "dslash: check failed: %s%s differs from the reference by %.3e (relative)\n", r.label.c_str(), where.c_str(),
                   r.check_error);
      ++failures;
    }
  if (check && failures == 0) std::fprintf(stderr, "check passed: %zu variant(s) agree with the reference\n", results.size());
  return failures == 0 ? 0 : 1;
}

// The MPI run of `dslash bench` (only in a build with MPI): exit status as run_bench's.
int run_bench_mpi(const BenchOptions& o);

}  // namespace dslash::cli
