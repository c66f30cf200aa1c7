#pragma once
// The main of the MPI test binaries (run under mpirun by ctest): --grid=a.b.c.d sets the process
// grid, rank 0 alone prints, and every rank exits non-zero when any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "mpi/mpi_session.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::test {

inline int run_mpi_tests(int argc, char** argv, Coord& grid) {
  mpi::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--grid=", 0) == 0) grid = mpi::parse_grid(argv[i] + 7);
  if (session.rank() != 0) {  // one report, from rank 0
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

}  // namespace dslash::test
