#pragma once
// A singular M, checked the same way on every backend: on the unit gauge at m = 0 a constant field
// is a zero mode of M_ee_hat (D_{o<-e} and D_{e<-o} each multiply it by 8: 4 - 64 / 16 = 0), so from
// a constant source M^dagger r = 0 at once. CGNR, double and mixed, stops with that breakdown before
// its first iteration counts, and x stays zero: the passes that read alpha = 0 / 0 from the sums
// (solvers/device_sums.hpp) read it as zero.
#include <gtest/gtest.h>

#include "dslash/lattice/field_ops.hpp"
#include "solvers/cg.hpp"

namespace dslash::test {

template <class Space>
void expect_singular_operator_reported(const Geometry& g, const DslashConfig& config) {
  GaugeField<double> u(g);
  fill_unit(u);
  const EvenOddWilson<double, Space> op(u, 0.0, config);
  const EvenOddWilson<float, Space> sloppy(convert_precision<float>(u), 0.0, config);
  const auto b = op.allocate("b"), x = op.allocate("x");
  deep_copy(b, 1.0);
  for (const bool mixed : {false, true}) {
    const char* what = mixed ? "mixed" : "double";
    deep_copy(x, 0.0);
    const SolverResult r = mixed ? cgnr(op, sloppy, b, x, {}) : cgnr(op, b, x, {});
    EXPECT_FALSE(r.converged) << what;
    EXPECT_EQ(r.breakdown, "M^dagger r is zero") << what;
    EXPECT_EQ(r.iterations, 0) << what;
    EXPECT_EQ(op.norm2(x), 0.0) << what;
  }
}

}  // namespace dslash::test
