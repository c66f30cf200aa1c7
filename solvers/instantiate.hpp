#pragma once
// The solvers for one memory space, as the kernels are per instruction set: every precision pair a
// solve uses (double, single, and double iterating in single). Included once per space:
// solvers_host.cpp (HostSpace) and, with the CUDA backend, solvers_cuda.cu (CudaSpace), which nvcc
// compiles so that the BLAS loops and the kernels' launches become GPU code.
#include "solvers/bicgstab_impl.hpp"
#include "solvers/block_bicgstab_impl.hpp"
#include "solvers/block_cg_impl.hpp"
#include "solvers/cg_impl.hpp"
#include "solvers/wilson_operator_impl.hpp"

#define DSLASH_INSTANTIATE_SOLVER_PAIR(Real, Sloppy, Space)                                                                     \
  template SolverResult cgnr<Real, Sloppy, Space>(const EvenOddWilson<Real, Space>&, const EvenOddWilson<Sloppy, Space>&,     \
                                                  const EvenOddWilson<Real, Space>::vector_type&,                              \
                                                  const EvenOddWilson<Real, Space>::vector_type&, const SolverParams&);        \
  template SolverResult bicgstab<Real, Sloppy, Space>(const EvenOddWilson<Real, Space>&, const EvenOddWilson<Sloppy, Space>&, \
                                                      const EvenOddWilson<Real, Space>::vector_type&,                          \
                                                      const EvenOddWilson<Real, Space>::vector_type&, const SolverParams&);    \
  template BlockSolverResult block_cgnr<Real, Sloppy, Space>(const EvenOddWilson<Real, Space>&, const EvenOddWilson<Sloppy, Space>&, \
                                                             const EvenOddWilson<Real, Space>::vector_type&,                          \
                                                             const EvenOddWilson<Real, Space>::vector_type&, const SolverParams&); \
  template BlockSolverResult block_bicgstab<Real, Sloppy, Space>(const EvenOddWilson<Real, Space>&, const EvenOddWilson<Sloppy, Space>&, \
                                                                 const EvenOddWilson<Real, Space>::vector_type&,                          \
                                                                 const EvenOddWilson<Real, Space>::vector_type&, const SolverParams&);

#define DSLASH_INSTANTIATE_CONVERT(To, From, Space)                                                                                  \
  template void convert<To, From, Space>(const EvenOddWilson<From, Space>&, const EvenOddWilson<From, Space>::vector_type&, \
                                         const EvenOddWilson<To, Space>&, const EvenOddWilson<To, Space>::vector_type&);    \
  template void add_and_zero<To, From, Space>(const EvenOddWilson<From, Space>&, const EvenOddWilson<From, Space>::vector_type&, \
                                              const EvenOddWilson<To, Space>&, const EvenOddWilson<To, Space>::vector_type&); \
  template void add_and_zero<To, From, Space>(const EvenOddWilson<From, Space>&, const EvenOddWilson<From, Space>::vector_type&,  \
                                              DeviceRatio<From>, const EvenOddWilson<From, Space>::vector_type&,                  \
                                              const EvenOddWilson<To, Space>&, const EvenOddWilson<To, Space>::vector_type&); \
  template double convert_difference<To, From, Space>(const EvenOddWilson<From, Space>&, const EvenOddWilson<From, Space>::vector_type&, \
                                                      const EvenOddWilson<From, Space>::vector_type&, const EvenOddWilson<To, Space>&,    \
                                                      const EvenOddWilson<To, Space>::vector_type&);

#define DSLASH_INSTANTIATE_SOLVERS(Space)               \
  template class EvenOddWilson<float, Space>;           \
  template class EvenOddWilson<double, Space>;          \
  DSLASH_INSTANTIATE_CONVERT(float, float, Space)       \
  DSLASH_INSTANTIATE_CONVERT(float, double, Space)      \
  DSLASH_INSTANTIATE_CONVERT(double, float, Space)      \
  DSLASH_INSTANTIATE_CONVERT(double, double, Space)     \
  DSLASH_INSTANTIATE_SOLVER_PAIR(double, double, Space) \
  DSLASH_INSTANTIATE_SOLVER_PAIR(float, float, Space)   \
  DSLASH_INSTANTIATE_SOLVER_PAIR(double, float, Space)
