#pragma once
// Execution spaces: where a parallel pattern runs. A policy names its space; each space has its
// own backend header (core/backend/<space>.hpp, or a folder: core/backend/cuda/) with one
// specialisation per (pattern x policy).
#include <omp.h>

namespace dslash {

// How a host backend hands out a parallel_for's work to its threads. Static: equal contiguous
// shares, fixed in advance. Dynamic: in chunks, to whichever thread is free, so a core that runs
// slow (a busy neighbour, its place on the mesh) does less of the work instead of holding up the
// rest; cores of one machine can differ that much at reading memory (docs/PERFORMANCE.md, device
// host CPU; docs/history/HISTORY.md, "Work handed out as threads free up"). Default: the space's
// setting (OpenMP::schedule()). Reductions follow it too, with a partial per chunk joined in chunk
// order: the same thread count still gives bitwise the same sum.
enum class Schedule { Default, Static, Dynamic };

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
  // The schedule of a policy that names none (Schedule::Default): Dynamic unless set. Set it before
  // any parallel work starts (the CLI's --schedule), not from inside a parallel region.
  static Schedule schedule() { return setting(); }
  static void set_schedule(Schedule s) { setting() = s == Schedule::Default ? Schedule::Dynamic : s; }

 private:
  static Schedule& setting() {
    static Schedule s = Schedule::Dynamic;
    return s;
  }
};

inline const char* to_string(Schedule s) {
  return s == Schedule::Static ? "static" : s == Schedule::Dynamic ? "dynamic" : "default";
}

using DefaultExecutionSpace = OpenMP;

}  // namespace dslash
