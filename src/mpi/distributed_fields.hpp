#pragma once
// Moving whole fields between rank 0 and the ranks' local blocks: rank 0 holds the global field
// (it reads and writes the files, with the single-process readers and their checks), and each rank
// gets or gives its block. Simple and exact; rank 0 needs memory for one global field.
#include <optional>
#include <string>

#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Collective. `global` is read on rank 0 only (others pass nullptr).
template <class Real>
GaugeField<Real> scatter(const ProcessGrid& grid, const GaugeField<Real>* global);
template <class Real>
SpinorField<Real> scatter(const ProcessGrid& grid, const SpinorField<Real>* global, Subset subset);

// Collective. The global field on rank 0, nothing elsewhere.
template <class Real>
std::optional<GaugeField<Real>> gather(const ProcessGrid& grid, const GaugeField<Real>& local);
template <class Real>
std::optional<SpinorField<Real>> gather(const ProcessGrid& grid, const SpinorField<Real>& local);

// NERSC under MPI: rank 0 reads (every check of io::read_nersc) and scatters; gathers and writes.
// A failure on rank 0 is a CollectiveError on every rank.
template <class Real>
GaugeField<Real> read_nersc(const ProcessGrid& grid, const std::string& path);
template <class Real>
void write_nersc(const ProcessGrid& grid, const std::string& path, const GaugeField<Real>& local);

}  // namespace dslash::mpi
