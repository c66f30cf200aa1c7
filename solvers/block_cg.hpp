#pragma once
// Block CGNR: the right-hand sides of one mrhs buffer solved together, each with its own CG. Every
// operator application is one kernel call over all of them (the links read once for the block);
// every right-hand side has its own alpha, beta and norms (solvers/rhs_blas.hpp: one pass gives N
// sums) and its own stop: a right-hand side that has converged (or hit the iteration limit, or broken
// down) is frozen, its alpha 0, so its x and r stop changing while the others go on.
//
// Mixed precision as cgnr's (solvers/reliable_update.hpp): the iterations in Sloppy on an increment
// x_s and an iterated residual, x and the true residual in Real. A reliable update is due when one
// right-hand side's iterated residual has fallen by reliable_delta since its last, and then it is
// made for the whole block (one operator call recomputes every residual at the cost of one);
// the stall test counts a right-hand side's own due updates only, and each restarts its direction
// alone where its recomputed residual has drifted from its iterated one.
#include "solvers/block_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x_r = b_r for every right-hand side r of the even packed buffers b and x (start:
// the x given; zero it for a cold start). A zero b_r gives x_r = 0 at once (converged, 0
// iterations), as does a start that already meets the tolerance. params.progress gets the block's
// iteration and the largest iterated residual of the right-hand sides still iterating.
template <class Real, class Sloppy, class Space>
BlockSolverResult block_cgnr(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy,
                             const typename EvenOddWilson<Real, Space>::vector_type& b, const typename EvenOddWilson<Real, Space>::vector_type& x,
                             const SolverParams& params = {});

template <class Real, class Space>
BlockSolverResult block_cgnr(const EvenOddWilson<Real, Space>& op, const typename EvenOddWilson<Real, Space>::vector_type& b,
                             const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {}) {
  return block_cgnr(op, op, b, x, params);
}

}  // namespace dslash
