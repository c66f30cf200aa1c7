#include "bench/report.hpp"

#include <cstdlib>

#include "dslash/core/execution_space.hpp"
#include "io/atomic_file.hpp"

namespace dslash::bench {

namespace {

const char* env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "unset";
}

std::string format(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

}  // namespace

std::string footprint_text(std::uint64_t footprint, const CacheInfo& llc) {
  if (!llc.known()) return format_bytes(footprint) + " (last-level cache size unknown: inputs not rotated)";
  const std::string cache = format_bytes(llc.bytes) + " last-level cache, from " + llc.source;
  const std::string share = llc.sharing > 1 ? "its 1/" + std::to_string(llc.sharing) + " share of the " + cache : "the " + cache;
  return format_bytes(footprint) + " (" + (footprint <= llc.share() ? "fits in " : "exceeds ") + share + ")";
}

std::string timing_rule(int iters, int warmup) {
  return "the best of " + std::to_string(iters) + " timed calls; min/median/max over all " + std::to_string(iters) + ", after " +
         std::to_string(warmup) + " untimed warm-up calls";
}

std::string compression_text(int compress) {
  if (compress == 12) return "12 reals per link (two rows stored, the third rebuilt)";
  if (compress == 8) return "8 reals per link (QUDA's reconstruct-8)";
  return "none (18 reals per link)";
}

std::string RunInfo::headline() const { return timing_rule(iters, warmup) + (distributed ? ", each call timed to the slowest rank" : ""); }

void print_header(std::FILE* out, const RunInfo& run, const Ceilings& ceilings) {
  const char* per_rank = run.distributed ? " per rank" : "";
  std::fprintf(out, "# %s: %s, %lld sites per parity%s, footprint%s %s\n", run.title.c_str(), run.where.c_str(),
               static_cast<long long>(run.sites_per_parity), per_rank, per_rank, footprint_text(run.footprint_bytes, run.llc).c_str());
  if (ceilings.on_device)
    std::fprintf(out, "# host threads %d (packing and --check only: the kernels run on the GPU)\n", run.threads);
  else
    std::fprintf(out, "# threads%s %d, schedule %s, OMP_PROC_BIND %s, OMP_PLACES %s\n", per_rank, run.threads, to_string(OpenMP::schedule()),
                 env_or_unset("OMP_PROC_BIND"), env_or_unset("OMP_PLACES"));
  std::fprintf(out, "# simd %s (%d lanes), precision %s, gauge compression %s, %s, flags '%s'\n", to_string(run.isa),
               simd_lanes(run.isa, run.bytes_per_real), run.prec().c_str(), compression_text(run.compress).c_str(),
               compiler_description().c_str(), build_flags().c_str());
  std::fprintf(out, "# git %s, %s, host %s\n", git_revision().c_str(), run.started.c_str(), host_name().c_str());
  const std::string triad = ceilings.on_device ? "device triad over " + format_bytes(ceilings.triad_bytes) + format("; copy %.1f GB/s", ceilings.copy_GBs())
                                                : "STREAM triad over " + format_bytes(ceilings.triad_bytes) + ", streaming stores";
  std::fprintf(out, "# ceilings%s: bandwidth %.1f GB/s (%s), FMA peak %.1f GFLOP/s (%s): the best of %d rounds, one at the start and one "
                    "after each variant\n",
               run.distributed ? " per rank (all ranks measuring at once)" : "", ceilings.bandwidth_GBs(), triad.c_str(),
               ceilings.fma_peak_GFLOPs(run.isa), to_string(run.isa), ceilings.rounds());
  if (ceilings.noisy(run.isa))
    std::fprintf(out, "# NOISY MACHINE: the ceilings moved while being measured (bandwidth %.0f%%, FMA %.0f%% best vs median); "
                      "rates and %% of roofline may differ between runs by more than 10%%\n",
                 100 * ceilings.bandwidth_spread(), 100 * ceilings.fma_spread(run.isa));
  if (run.dram_lattice[0] > 0)
    std::fprintf(out, "# FOOTPRINT UNDER %dx THE CACHE: one call of %s reads and writes %.1fx the %s%s (links, input, output), and "
                      "every call reads its links again, so part of each call is served from the cache and rates and %% of roofline "
                      "overstate what DRAM allows; for DRAM figures run --lattice %s, the smallest of this shape at %dx\n",
                 static_cast<int>(kDramFootprintFactor), run.smallest_call.c_str(), run.footprint_over_llc,
                 run.llc.sharing > 1 ? "share of the " : "", (format_bytes(run.llc.bytes) + " last-level cache (" + run.llc.source + ")").c_str(),
                 Geometry(run.dram_lattice).to_string().c_str(), static_cast<int>(kDramFootprintFactor));
  std::fprintf(out, "# rates from %s\n", run.headline().c_str());
  for (const auto& note : run.notes) std::fprintf(out, "# %s\n", note.c_str());
}

std::string csv_columns(bool traffic) {
  return std::string("kernel,dispatch,prec,simd,nrhs,lattice,parity,dagger,layout,compress,tile,tile_source,team_size,time_min_s,time_median_s,"
                     "time_max_s,gflops,gbytes_model,roofline_gflops,percent_of_roofline") +
         (traffic ? ",traffic_gflops" : "");
}

std::string csv_row(const VariantResult& r, const RunInfo& run, bool traffic) {
  std::string row = std::string(to_string(r.cfg.kernel)) + "," + to_string(r.cfg.dispatch) + "," + run.prec() + "," + to_string(r.cfg.isa) + "," +
                    std::to_string(r.cfg.nrhs) + "," + Geometry(run.lattice).to_string() + "," + to_string(r.cfg.out) + "," +
                    (r.cfg.dagger ? "1" : "0") + "," + to_string(r.cfg.layout) + "," + std::to_string(r.cfg.compress) + "," +
                    tile_text(r.cfg.tile) + "," + r.tile_source + "," +
                    std::to_string(r.cfg.team_size);
  for (double t : {r.time_min, r.time_median, r.time_max}) row += format(",%.6e", t);
  for (double rate : {r.gflops, r.gbytes_model, r.roofline_gflops}) row += format(",%.3f", rate);
  row += format(",%.2f", r.percent_of_roofline);
  if (traffic) row += format(",%.3f", r.traffic_gflops);
  return row;
}

nlohmann::json result_json(const VariantResult& r, const RunInfo& run) {
  nlohmann::json j = {
      {"kernel", to_string(r.cfg.kernel)}, {"dispatch", to_string(r.cfg.dispatch)}, {"prec", run.prec()},
      {"simd", to_string(r.cfg.isa)}, {"lanes", r.lanes}, {"nrhs", r.cfg.nrhs}, {"lattice", run.lattice},
      {"parity", to_string(r.cfg.out)}, {"dagger", r.cfg.dagger}, {"layout", to_string(r.cfg.layout)}, {"compress", r.cfg.compress},
      {"tile", r.cfg.tile},
      {"tile_source", r.tile_source}, {"team_size", r.cfg.team_size}, {"sites_per_team", r.cfg.sites_per_team}, {"gflops", r.gflops},
      {"gbytes_model", r.gbytes_model}, {"roofline_gflops", r.roofline_gflops}, {"percent_of_roofline", r.percent_of_roofline},
      {"fma_peak_gflops", r.fma_peak_gflops}, {"time_min_s", r.time_min}, {"time_median_s", r.time_median},
      {"time_max_s", r.time_max}, {"times_s", r.times}, {"spread", r.spread}, {"rotating_sets", r.rotating_sets},
      {"call_bytes", r.call_bytes}, {"link_prefetch", r.link_prefetch_into != "none"}, {"link_prefetch_into", r.link_prefetch_into},
      {"block_z", r.block_z}};
  if (run.llc.known()) j["footprint_over_llc"] = static_cast<double>(r.call_bytes) / static_cast<double>(run.llc.share());
  j.update(run.extra);
  if (r.check) j["check"] = {{"passed", r.check->passed}, {"relative_error", r.check->relative_error}};
  if (!r.traffic_times.empty()) {
    j["traffic_gflops"] = r.traffic_gflops;
    j["traffic_percent_of_roofline"] = 100.0 * r.traffic_gflops / r.roofline_gflops;
    j["traffic_times_s"] = r.traffic_times;
  }
  return j;
}

nlohmann::json run_json(const RunInfo& run, const Ceilings& ceilings, const nlohmann::json& results, const std::vector<std::string>& skipped) {
  const std::int64_t volume = static_cast<std::int64_t>(run.lattice[0]) * run.lattice[1] * run.lattice[2] * run.lattice[3];
  nlohmann::json meta = {
      {"lattice", run.lattice}, {"volume_per_parity", volume / 2}, {"footprint_bytes", run.footprint_bytes},
      {"llc_bytes", run.llc.bytes}, {"llc_source", run.llc.source}, {"llc_sharing", run.llc.sharing},
      {"fits_in_llc", run.llc.known() ? nlohmann::json(run.footprint_bytes <= run.llc.share()) : nlohmann::json(nullptr)},
      {"threads", run.threads}, {"schedule", to_string(OpenMP::schedule())}, {"omp_proc_bind", env_or_unset("OMP_PROC_BIND")}, {"omp_places", env_or_unset("OMP_PLACES")},
      {"simd", to_string(run.isa)}, {"lanes", simd_lanes(run.isa, run.bytes_per_real)}, {"prec", run.prec()},
      {"compiler", compiler_description()}, {"flags", build_flags()}, {"git", git_revision()}, {"date", run.started},
      {"host", host_name()}, {"cpu_model", cpu_model()}, {"command_line", command_line()}, {"iters", run.iters}, {"warmup", run.warmup}, {"parity", run.parity}, {"dagger", run.dagger},
      {"compress", run.compress},
      {"headline", run.headline()},
      {"footprint_over_llc", run.footprint_over_llc > 0 ? nlohmann::json(run.footprint_over_llc) : nlohmann::json(nullptr)},
      {"dram_lattice", run.dram_lattice[0] > 0 ? nlohmann::json(run.dram_lattice) : nlohmann::json(nullptr)}};
  meta.update(run.extra);
  nlohmann::json fma_by_simd = nlohmann::json::object();
  for (SimdIsa isa : run.isas) fma_by_simd[to_string(isa)] = ceilings.fma_peak_GFLOPs(isa);
  nlohmann::json ceilings_json = {
      {"bandwidth_GBs", ceilings.bandwidth_GBs()}, {"fma_peak_GFLOPs", ceilings.fma_peak_GFLOPs(run.isa)},
      {"fma_peak_GFLOPs_by_simd", fma_by_simd}, {"rounds", ceilings.rounds()}, {"triad_bytes", ceilings.triad_bytes},
      {"bandwidth_samples_GBs", ceilings.triads}, {"fma_samples_GFLOPs", ceilings.fma_loops},
      {"bandwidth_spread", ceilings.bandwidth_spread()}, {"fma_spread", ceilings.fma_spread(run.isa)},
      {"noisy", ceilings.noisy(run.isa)}, {"per", run.distributed ? "rank" : "process"}};
  if (ceilings.on_device) {
    ceilings_json["copy_GBs"] = ceilings.copy_GBs();
    ceilings_json["copy_samples_GBs"] = ceilings.copies;
  }
  return {{"meta", meta}, {"ceilings", ceilings_json}, {"results", results}, {"skipped", skipped}};
}

void write_json(const std::string& path, const nlohmann::json& j) {
  io::AtomicFileWriter out(path);
  out.stream() << j.dump(2) << '\n';
  out.commit();
}

}  // namespace dslash::bench
