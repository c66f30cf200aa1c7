#pragma once
// A block solve's result (solvers/block_cg.hpp, solvers/block_bicgstab.hpp): each right-hand
// side's own, and the block's.
#include <string>
#include <vector>

#include "solvers/solver_result.hpp"

namespace dslash {

struct BlockSolverResult {
  std::vector<SolverResult> rhs;  // one per right-hand side (config().nrhs of them)
  double setup_seconds = 0;       // allocating the block's vectors
  int iterations = 0;             // block iterations: the most any right-hand side ran
  std::vector<double> history;    // the largest iterated residual of those iterating, before the first iteration and after each
  std::vector<TrueResidual> reliable_updates;  // the block's: after which iteration, and the largest true residual it found

  // The block as one solve: converged when every right-hand side is; otherwise the first that is
  // not says how it stopped; the residual is the largest.
  SolverResult summary() const {
    SolverResult s;
    s.converged = true;
    s.stop = Stop::Converged;
    s.iterations = iterations;
    s.history = history;
    s.reliable_updates = reliable_updates;
    s.setup_seconds = setup_seconds;
    for (std::size_t r = 0; r < rhs.size(); ++r) {
      const SolverResult& one = rhs[r];
      if (!(one.relative_residual <= s.relative_residual)) s.relative_residual = one.relative_residual;  // NaN too
      if (s.converged && !one.converged) {
        s.converged = false;
        s.stop = one.stop;
        if (!one.breakdown.empty()) s.breakdown = "right-hand side " + std::to_string(r) + ": " + one.breakdown;
      }
    }
    return s;
  }
};

}  // namespace dslash
