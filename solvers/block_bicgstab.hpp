#pragma once
// Block BiCGStab: the right-hand sides of one mrhs buffer solved together, each with its own
// BiCGStab (solvers/bicgstab.hpp): every operator application is one kernel call over all of them,
// and every right-hand side has its own rho, alpha, omega, beta and norms, made on the device from
// its own sums (solvers/rhs_blas.hpp), and its own stop. Mixed precision, reliable updates and the
// per right-hand side stops as block CGNR's (solvers/block_update.hpp); after the block's update
// each right-hand side makes its direction again from its recomputed residual, or starts afresh
// where that has drifted.
#include "solvers/block_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x_r = b_r for every right-hand side r of the even packed buffers b and x, as
// block_cgnr (solvers/block_cg.hpp) does.
template <class Real, class Sloppy, class Space>
BlockSolverResult block_bicgstab(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy,
                                 const typename EvenOddWilson<Real, Space>::vector_type& b, const typename EvenOddWilson<Real, Space>::vector_type& x,
                                 const SolverParams& params = {});

template <class Real, class Space>
BlockSolverResult block_bicgstab(const EvenOddWilson<Real, Space>& op, const typename EvenOddWilson<Real, Space>::vector_type& b,
                                 const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {}) {
  return block_bicgstab(op, op, b, x, params);
}

}  // namespace dslash
