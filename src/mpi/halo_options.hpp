#pragma once
// How a distributed run moves and completes its halo, as values: what --comms-overlap, --cpu-halo,
// --gpu-halo, --halo-complete and bench's --halo-messages and --halo-chunks parse to. No MPI here:
// the command line parses them in every build (src/cli/options.cpp); HaloDslash obeys them.

namespace dslash::mpi {

// What the interior does while the halo travels (--comms-overlap): None waits for it first; Chunks
// tests the messages between slabs of the interior (on); Thread tests them on the master thread.
enum class Progress { None, Chunks, Thread };
// How CPU ranks move their halos (--cpu-halo): Inputs or Shared where every neighbour is on this
// node (Auto picks HaloOptions::auto_on_node there: Inputs, or Shared for a solve; else Mpi), Mpi as messages.
enum class CpuHalo { Auto, Mpi, Shared, Inputs };
// How GPU ranks move their halos (--gpu-halo): Peer where every neighbour's GPU is reachable on this
// node (Auto picks it there, else Staged), Staged through pinned host buffers and MPI.
enum class GpuHalo { Auto, Staged, Peer };
// Where a CPU rank adds its halo's hops (--halo-complete): Auto in the interior launch where the
// halo is in before it, else with the face kernels after it; Faces always after it.
enum class HaloComplete { Auto, Faces };

// The option values these are named by, which the reports print too.
constexpr const char* to_string(Progress p) { return p == Progress::None ? "off" : p == Progress::Chunks ? "chunks" : "thread"; }
constexpr const char* to_string(CpuHalo h) {
  return h == CpuHalo::Mpi ? "mpi" : h == CpuHalo::Shared ? "shared" : h == CpuHalo::Inputs ? "inputs" : "auto";
}
constexpr const char* to_string(GpuHalo h) { return h == GpuHalo::Staged ? "staged" : h == GpuHalo::Peer ? "peer" : "auto"; }
constexpr const char* to_string(HaloComplete c) { return c == HaloComplete::Faces ? "faces" : "auto"; }
constexpr const char* halo_messages_name(bool coalesce) { return coalesce ? "per-peer" : "per-face"; }  // HaloOptions::coalesce

struct HaloOptions {
  bool coalesce = true;  // one message per peer, else one per face (mpi/halo_exchange.hpp)
  int chunks = 0;        // Chunks: interior slabs (0: progress_slabs() chooses)
  GpuHalo gpu_halo = GpuHalo::Auto;
  CpuHalo cpu_halo = CpuHalo::Auto;
  // What Auto picks where every neighbour is on this node: Inputs (the bench), or Shared (a solve's
  // operator, HaloHopping: its vectors in windows gained nothing measurable and cost setup).
  CpuHalo auto_on_node = CpuHalo::Inputs;
  HaloComplete complete = HaloComplete::Auto;
};

}  // namespace dslash::mpi
