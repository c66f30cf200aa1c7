#pragma once
// The MPI session of a program and the error discipline of the MPI layer. An error that every rank
// detects alike (a bad grid, a lattice the grid cannot divide) is a CollectiveError: every rank
// throws it, rank 0 prints it, all exit 2. An error that only some ranks see (rank 0 cannot read a
// file) is made collective with agree() or collectively(), so no rank is left waiting forever.
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "dslash/lattice/geometry.hpp"

namespace dslash::mpi {

// True when mpirun/mpiexec started this process (Open MPI, PMI or PMIx environment).
bool launched_by_mpirun();

// MPI_Init_thread(FUNNELED) ... MPI_Finalize. Only the master thread, outside parallel regions,
// calls MPI.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

struct CollectiveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every rank passes its own verdict; if any failed, every rank throws CollectiveError carrying the
// message of the lowest failing rank.
void agree(bool ok, const std::string& message, MPI_Comm comm = MPI_COMM_WORLD);

// Runs rank-local work f (no collectives inside); an exception on some ranks becomes a
// CollectiveError on all.
template <class F>
void collectively(F&& f, MPI_Comm comm = MPI_COMM_WORLD) {
  std::string error;
  try {
    f();
  } catch (const std::exception& e) {
    error = *e.what() ? e.what() : "unknown error";
  }
  agree(error.empty(), error, comm);
}

// Rank 0's value on every rank.
Coord broadcast(const Coord& value, MPI_Comm comm = MPI_COMM_WORLD);

template <class Real>
inline MPI_Datatype datatype() {
  return sizeof(Real) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

}  // namespace dslash::mpi
