#include "solvers/cg.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dslash/lattice/field_ops.hpp"

namespace dslash {

namespace {

// dst (op_to's precision and layout) = src (op_from's), through the fields: the two precisions' SIMD
// layouts differ in their lane counts.
template <class To, class From>
void convert(const EvenOddWilson<From>& op_from, const typename EvenOddWilson<From>::vector_type& src, const EvenOddWilson<To>& op_to,
             const typename EvenOddWilson<To>::vector_type& dst) {
  std::vector<SpinorField<From>> fields;
  for (int r = 0; r < op_from.config().nrhs; ++r) fields.emplace_back(op_from.geometry(), Subset::Even);
  op_from.unpack(src, fields);
  std::vector<SpinorField<To>> converted;
  for (const auto& f : fields) converted.push_back(convert_precision<To>(f));
  op_to.pack(converted, dst);
}

}  // namespace

template <class Real>
SolverResult cgnr(const EvenOddWilson<Real>& op, const typename EvenOddWilson<Real>::vector_type& b,
                  const typename EvenOddWilson<Real>::vector_type& x, const SolverParams& params) {
  const double b_norm = std::sqrt(norm2(b));
  if (auto trivial = solve_trivially("cgnr", params, b_norm, x)) return *trivial;
  SolverResult result;
  const auto r = op.allocate("cg_r"), s = op.allocate("cg_s"), p = op.allocate("cg_p"), q = op.allocate("cg_q");
  op.residual(b, x, r);
  op.apply(r, s, true);  // s = M^dagger r, the normal equations' residual
  deep_copy(p, s);
  double gamma = norm2(s);
  double r_rel = std::sqrt(norm2(r)) / b_norm;
  result.history.push_back(r_rel);
  while (r_rel > params.tolerance && result.iterations < params.max_iterations) {
    op.apply(p, q);
    const double alpha = gamma / norm2(q);
    axpy(static_cast<Real>(alpha), p, x);
    axpy(static_cast<Real>(-alpha), q, r);
    op.apply(r, s, true);
    const double gamma_next = norm2(s);
    xpay(s, static_cast<Real>(gamma_next / gamma), p);
    gamma = gamma_next;
    r_rel = std::sqrt(norm2(r)) / b_norm;
    ++result.iterations;
    result.history.push_back(r_rel);
  }
  op.residual(b, x, r);
  result.relative_residual = std::sqrt(norm2(r)) / b_norm;
  result.converged = r_rel <= params.tolerance;
  return result;
}

SolverResult mixed_cgnr(const EvenOddWilson<double>& op, const EvenOddWilson<float>& inner, const EvenOddWilson<double>::vector_type& b,
                        const EvenOddWilson<double>::vector_type& x, const SolverParams& params, double inner_tolerance) {
  if (!(inner_tolerance > 0 && inner_tolerance < 1)) throw std::invalid_argument("mixed_cgnr: inner tolerance must be in (0, 1)");
  const double b_norm = std::sqrt(norm2(b));
  if (auto trivial = solve_trivially("mixed_cgnr", params, b_norm, x)) return *trivial;
  SolverResult result;
  const auto r = op.allocate("mixed_r"), e = op.allocate("mixed_e");
  const auto r_single = inner.allocate("mixed_r_single"), e_single = inner.allocate("mixed_e_single");
  op.residual(b, x, r);
  double r_rel = std::sqrt(norm2(r)) / b_norm;
  result.history.push_back(r_rel);
  while (r_rel > params.tolerance && result.iterations < params.max_iterations) {
    // The correction e of M e = r in single precision, to inner_tolerance of r, or as close to the
    // outer tolerance as that is.
    convert(op, r, inner, r_single);
    deep_copy(e_single, 0.0f);
    const double inner_tol = std::max(inner_tolerance, params.tolerance / r_rel);
    const SolverResult step = cgnr(inner, r_single, e_single, {.tolerance = inner_tol, .max_iterations = params.max_iterations - result.iterations});
    result.iterations += std::max(step.iterations, 1);
    convert(inner, e_single, op, e);
    axpy(1.0, e, x);
    op.residual(b, x, r);  // the true residual, in double
    const double next = std::sqrt(norm2(r)) / b_norm;
    result.history.push_back(next);
    if (!(next < r_rel)) {
      result.breakdown = "the single-precision correction no longer reduces the residual";
      r_rel = next;
      break;
    }
    r_rel = next;
  }
  result.relative_residual = r_rel;  // recomputed in double at every outer step
  result.converged = r_rel <= params.tolerance;
  return result;
}

template SolverResult cgnr<float>(const EvenOddWilson<float>&, const EvenOddWilson<float>::vector_type&, const EvenOddWilson<float>::vector_type&,
                                  const SolverParams&);
template SolverResult cgnr<double>(const EvenOddWilson<double>&, const EvenOddWilson<double>::vector_type&,
                                   const EvenOddWilson<double>::vector_type&, const SolverParams&);

}  // namespace dslash
