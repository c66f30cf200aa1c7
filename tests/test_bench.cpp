// The benchmark's honesty: where the cache size comes from and what the run does when nobody
// knows it, the one timing rule, the --check verdict, and the one report every bench writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/machine.hpp"
#include "bench/metrics.hpp"
#include "bench/report.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/reference_dslash.hpp"
#include "test_support.hpp"

namespace dslash::bench {
namespace {

constexpr std::uint64_t MiB = 1u << 20, GiB = 1u << 30;

TEST(CacheDetection, TakesTheFirstSourceThatKnowsInOrderSysfsCpuidSysconf) {
  EXPECT_EQ(choose_last_level_cache({.sysfs = 32 * MiB, .cpuid = 16 * MiB, .sysconf = 8 * MiB}).source, "sysfs");
  const CacheInfo vm = choose_last_level_cache({.sysfs = 0, .cpuid = 508 * MiB, .sysconf = 508 * MiB});  // a VM without sysfs entries
  EXPECT_EQ(vm.bytes, 508 * MiB);
  EXPECT_EQ(vm.source, "cpuid");
  EXPECT_EQ(choose_last_level_cache({.sysfs = 0, .cpuid = 0, .sysconf = 8 * MiB}).source, "sysconf");
  const CacheInfo none = choose_last_level_cache({});
  EXPECT_FALSE(none.known());
  EXPECT_EQ(none.source, "unknown");
}

// The kernels' link-prefetch rule reads the cache the bench reports (not sysconf alone, which on a
// 2-vCPU AMD VM said 320 MiB where sysfs said 32).
TEST(CacheDetection, TheKernelsSeeTheCacheTheBenchReports) {
  EXPECT_EQ(host_last_level_cache_bytes(), last_level_cache().bytes);
}

TEST(CacheDetection, RanksOnANodeShareTheCache) {
  const CacheInfo c = choose_last_level_cache({.sysfs = 32 * MiB}, 4);
  EXPECT_EQ(c.bytes, 32 * MiB);
  EXPECT_EQ(c.share(), 8 * MiB);
  EXPECT_EQ(choose_last_level_cache({}, 0).sharing, 1);
}

// DSLASH_LLC_BYTES wins over every source a VM may get wrong; a value that is no size is an error.
TEST(CacheDetection, TheEnvironmentOverridesEverySource) {
  const CacheInfo c = choose_last_level_cache({.user = 32 * MiB, .sysfs = 64 * MiB, .cpuid = 508 * MiB});
  EXPECT_EQ(c.bytes, 32 * MiB);
  EXPECT_EQ(c.source, "DSLASH_LLC_BYTES");
  const char* before = std::getenv("DSLASH_LLC_BYTES");
  const std::string saved = before ? before : "";
  setenv("DSLASH_LLC_BYTES", "24M", 1);
  EXPECT_EQ(read_cache_sources().user, 24 * MiB);
  EXPECT_EQ(last_level_cache().bytes, 24 * MiB);
  setenv("DSLASH_LLC_BYTES", "lots", 1);
  EXPECT_THROW(read_cache_sources(), std::invalid_argument);
  // Sizes past any cache, and numbers past 64 bits, are refused in words naming the range, not taken.
  setenv("DSLASH_LLC_BYTES", "4G", 1);
  EXPECT_EQ(read_cache_sources().user, 4 * GiB);
  setenv("DSLASH_LLC_BYTES", "1K", 1);
  EXPECT_EQ(read_cache_sources().user, 1024u);
  for (const char* bad : {"64G", "4097M", "1023", "0", "99999999999999999999999", "18014398509481984K", "-1", " 32M"}) {
    setenv("DSLASH_LLC_BYTES", bad, 1);
    try {
      read_cache_sources();
      ADD_FAILURE() << bad << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "DSLASH_LLC_BYTES='" + std::string(bad) + "': expected a cache size from 1K to 4G, such as 32M, 32768K or 33554432");
    }
  }
  if (before) setenv("DSLASH_LLC_BYTES", saved.c_str(), 1);
  else unsetenv("DSLASH_LLC_BYTES");
}

TEST(CacheDetection, ParsesSysfsSizes) {
  EXPECT_EQ(parse_cache_size("32768K"), 32 * MiB);
  EXPECT_EQ(parse_cache_size("1M"), MiB);
  EXPECT_EQ(parse_cache_size("512"), 512u);
  EXPECT_EQ(parse_cache_size(""), 0u);
  EXPECT_EQ(parse_cache_size("K"), 0u);
  EXPECT_EQ(parse_cache_size("12X"), 0u);
  EXPECT_EQ(parse_cache_size("99999999999999999999999"), 0u);  // past 64 bits: unreadable, not saturated
  EXPECT_EQ(parse_cache_size("17179869184G"), 0u);             // 2^34 G is 2^64 bytes
  EXPECT_EQ(parse_cache_size("-1"), 0u);
}

TEST(CacheDetection, DecodesCpuidCacheParameters) {
  // 32 MiB, 16 ways, 1 partition, 64-byte lines, 32768 sets: every field is stored minus one.
  EXPECT_EQ(cpuid_cache_bytes((15u << 22) | (0u << 12) | 63u, 32767u), 32 * MiB);
  EXPECT_EQ(cpuid_cache_bytes((7u << 22) | (1u << 12) | 63u, 63u), 8u * 2 * 64 * 64);
}

TEST(CacheUnknown, TriadSpansAtLeastOneGibSoItReadsMemory) {
  // A VM without sysfs cache entries: a triad of 3 x 64 MiB there was served partly from its cache.
  EXPECT_GE(triad_total_bytes(0, 1), GiB);
  EXPECT_GE(Ceilings(choose_last_level_cache({})).triad_bytes, GiB);
  EXPECT_EQ(triad_total_bytes(508 * MiB, 1), 4 * 508 * MiB);  // a known cache: 4x it
  EXPECT_EQ(triad_total_bytes(8 * MiB, 1), GiB);
  EXPECT_EQ(triad_total_bytes(0, 4), GiB / 4);  // four ranks measuring at once span it together
}

TEST(CacheUnknown, InputsDoNotRotateAndTheHeaderSaysUnknown) {
  EXPECT_EQ(rotating_sets(0, MiB, MiB), 1);
  EXPECT_GT(rotating_sets(32 * MiB, MiB, MiB), 1);
  const std::string unknown = footprint_text(2 * MiB + MiB / 2, choose_last_level_cache({}));
  EXPECT_NE(unknown.find("last-level cache size unknown"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("exceeds"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("fits"), std::string::npos) << unknown;
}

TEST(CacheKnown, HeaderSaysFitsOrExceedsAndWhereTheSizeCameFrom) {
  const std::string fits = footprint_text(2 * MiB, choose_last_level_cache({.cpuid = 32 * MiB}));
  EXPECT_NE(fits.find("fits in the 32.0 MiB last-level cache, from cpuid"), std::string::npos) << fits;
  const std::string shared = footprint_text(10 * MiB, choose_last_level_cache({.sysfs = 32 * MiB}, 4));
  EXPECT_NE(shared.find("exceeds its 1/4 share of the 32.0 MiB last-level cache, from sysfs"), std::string::npos) << shared;
}

TEST(TimingRule, EveryTimedCallCounts) {
  const TimeSummary t = summarize_times({0.5, 3, 1, 2});  // the first timed call is not dropped
  EXPECT_EQ(t.min, 0.5);
  EXPECT_EQ(t.median, 1.5);
  EXPECT_EQ(t.max, 3);
  EXPECT_EQ(t.spread, 2);
  EXPECT_EQ(summarize_times({0.25}).min, 0.25);
  EXPECT_EQ(timing_rule(10, 2), "the best of 10 timed calls; min/median/max over all 10, after 2 untimed warm-up calls");
}

template <class Real>
void expect_check_catches_a_corrupted_output(double tolerance) {
  const Geometry geom({4, 4, 4, 4});
  GaugeField<double> u(geom, "u");
  fill_random_su3(u, 7);
  std::vector<SpinorField<Real>> in, out;
  for (int k = 0; k < 2; ++k) {
    SpinorField<double> psi(geom, Subset::Odd, "in"), chi(geom, Subset::Even, "out");
    fill_gaussian(psi, 11 + static_cast<std::uint64_t>(k));
    dslash_reference(u, psi, chi, false);
    in.push_back(convert_precision<Real>(psi));
    out.push_back(convert_precision<Real>(chi));
  }
  const GaugeField<Real> ur = convert_precision<Real>(u);
  const CheckOutcome good = check_against_reference(ur, in, out, false);
  EXPECT_TRUE(good.passed) << good.relative_error;
  EXPECT_LT(good.relative_error, tolerance);

  out[1](3, 2, 1) += Real(1);  // one component of the second right-hand side
  const CheckOutcome bad = check_against_reference(ur, in, out, false);
  EXPECT_FALSE(bad.passed);
  EXPECT_GT(bad.relative_error, 1e-3);
  EXPECT_FALSE(check_against_reference(ur, in, out, true).passed);  // the wrong operator fails too
}

TEST(Check, CatchesACorruptedOutputInSinglePrecision) { expect_check_catches_a_corrupted_output<float>(1e-5); }
TEST(Check, CatchesACorruptedOutputInDoublePrecision) { expect_check_catches_a_corrupted_output<double>(1e-12); }

TEST(Check, AFailedVariantIsReportedAndExitsOne) {
  std::vector<VariantResult> results(2);
  results[0].label = "naive/range";
  results[0].check = CheckOutcome{1e-7, true};
  results[1].label = "vnode/range";
  results[1].check = CheckOutcome{0.25, false};
  testing::internal::CaptureStderr();
  EXPECT_EQ(report_checks(results, true), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("dslash: check failed: vnode/range differs from the reference by 2.500e-01"), std::string::npos) << err;
  EXPECT_EQ(err.find("naive/range"), std::string::npos) << err;

  results[1].check = CheckOutcome{1e-7, true};
  testing::internal::CaptureStderr();
  EXPECT_EQ(report_checks(results, true), 0);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("check passed: 2 variant(s)"), std::string::npos);
}

RunInfo sample_run() {
  RunInfo run;
  run.where = "lattice 8x8x8x8";
  run.lattice = {8, 8, 8, 8};
  run.sites_per_parity = 2048;
  run.footprint_bytes = footprint_bytes<float>(Geometry(run.lattice));
  run.isa = SimdIsa::Scalar;
  run.isas = {SimdIsa::Scalar};
  run.iters = 5;
  run.warmup = 1;
  run.parity = "even";
  return run;
}

TEST(Report, EveryBenchWritesTheSameFieldsAndAddsItsOwn) {
  RunInfo run = sample_run();
  run.extra = {{"ranks", 4}};
  VariantResult r;
  r.times = {2e-3, 1e-3};
  r.check = CheckOutcome{1e-7, true};
  const nlohmann::json res = result_json(r, run);
  for (const char* key : {"kernel", "dispatch", "prec", "simd", "lanes", "nrhs", "lattice", "parity", "dagger", "layout", "compress", "tile",
                          "tile_source", "team_size", "sites_per_team", "gflops", "gbytes_model", "roofline_gflops",
                          "percent_of_roofline", "fma_peak_gflops", "time_min_s", "time_median_s", "time_max_s", "times_s", "spread",
                          "rotating_sets", "check"})
    EXPECT_TRUE(res.contains(key)) << key;
  EXPECT_EQ(res["ranks"], 4);
  EXPECT_FALSE(res.contains("traffic_gflops"));

  Ceilings ceilings(run.llc);
  const nlohmann::json j = run_json(run, ceilings, nlohmann::json::array({res}), {});
  EXPECT_EQ(j["meta"]["ranks"], 4);
  EXPECT_EQ(j["meta"]["compress"], 18);
  EXPECT_EQ(j["meta"]["headline"], timing_rule(5, 1));
  EXPECT_TRUE(j["meta"]["fits_in_llc"].is_null());  // the cache is unknown: neither fits nor exceeds
  EXPECT_EQ(j["meta"]["llc_source"], "unknown");
  EXPECT_GE(j["ceilings"]["triad_bytes"].get<std::uint64_t>(), GiB);
  EXPECT_EQ(j["results"].size(), 1u);

  run.llc = choose_last_level_cache({.sysconf = 32 * MiB});
  EXPECT_EQ(run_json(run, ceilings, nlohmann::json::array(), {})["meta"]["fits_in_llc"], true);
}

// The JSON says how the run was started (the command line, quoted where a shell needs it, so it can
// be pasted to run again) and on what CPU.
TEST(Report, TheJsonHoldsTheCommandLineAndTheCpuModel) {
  const char* argv[] = {"./dslash", "bench", "--lattice", "8x8x8x8", "--json", "my run.json", "--tile", "it's", ""};
  record_command_line(9, argv);
  EXPECT_EQ(command_line(), "./dslash bench --lattice 8x8x8x8 --json 'my run.json' --tile 'it'\\''s' ''");
  RunInfo run = sample_run();
  Ceilings ceilings(run.llc);
  const nlohmann::json meta = run_json(run, ceilings, nlohmann::json::array(), {})["meta"];
  EXPECT_EQ(meta["command_line"], command_line());
  ASSERT_TRUE(meta.contains("cpu_model"));
  EXPECT_EQ(meta["cpu_model"], cpu_model());
  EXPECT_FALSE(cpu_model().empty());

  std::istringstream x86("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor \n");
  EXPECT_EQ(cpu_model_from(x86), "AMD EPYC 7763 64-Core Processor");
  std::istringstream arm("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n");
  EXPECT_EQ(cpu_model_from(arm), "unknown");
}

// CONVENTIONS.md's compulsory bytes per site follow the links as stored: checkerboarded, single
// precision, 8 links of G reals and two spinors (48 reals): (8 G + 48) x 4 bytes.
TEST(ByteModel, FollowsTheGaugeCompression) {
  const int expected_single[][2] = {{18, 768}, {12, 576}, {8, 448}};
  for (const auto& [reals, bytes] : expected_single) {
    DslashConfig cfg{.kernel = KernelFamily::Vnode, .out = Subset::Even, .compress = reals};
    EXPECT_EQ(variant_bytes(cfg, 4).compulsory, bytes) << reals;
    EXPECT_EQ(variant_bytes(cfg, 8).compulsory, 2 * bytes) << reals;
    // mrhs: 16 right-hand sides share each (compressed) link.
    cfg.kernel = KernelFamily::Mrhs;
    cfg.nrhs = 16;
    EXPECT_DOUBLE_EQ(variant_bytes(cfg, 4).compulsory, (8.0 * reals / 16 + 48) * 4) << reals;
    // 5 right-hand sides in 8 AVX2 float lanes: the links shared by the 5 credited, the 8 spinors moved charged to them.
    cfg.isa = SimdIsa::Avx2;
    cfg.nrhs = 5;
    EXPECT_DOUBLE_EQ(variant_bytes(cfg, 4).compulsory, (8.0 * reals / 5 + 48.0 * 8 / 5) * 4) << reals;
  }
  // The full lattice: each site's 4 links (its backward hops are its neighbours' forward links).
  EXPECT_EQ(variant_bytes({.kernel = KernelFamily::Naive, .out = Subset::Full, .compress = 12}, 4).compulsory, (4 * 12 + 48) * 4);
  // Half precision: 2-byte reals and a 4-byte norm a spinor (52 bytes); the model reads 8
  // neighbours and the links, writes one (CONVENTIONS.md: 392 / 296 / 232 compulsory, 756 model).
  const int expected_half[][2] = {{18, 392}, {12, 296}, {8, 232}};
  for (const auto& [reals, bytes] : expected_half)
    EXPECT_EQ(variant_bytes({.kernel = KernelFamily::Vnode, .out = Subset::Even, .compress = reals, .half = true}, 4).compulsory, bytes) << reals;
  EXPECT_EQ(variant_bytes({.kernel = KernelFamily::Vnode, .out = Subset::Even, .half = true}, 4).model, 756);
}

TEST(ByteModel, TheTuneCacheKeepsCompressionsApart) {
  const Geometry geom({8, 8, 8, 8});
  EXPECT_NE(tune_key({.compress = 18}, geom, 4, "threads2"), tune_key({.compress = 12}, geom, 4, "threads2"));
  EXPECT_NE(tune_key({.compress = 12}, geom, 4, "threads2"), tune_key({.compress = 8}, geom, 4, "threads2"));
  // A team shape tuned for one z-block of the traversal is not the one for another.
  EXPECT_NE(tune_key({.dispatch = Dispatch::Team, .block_z = 2}, geom, 4, "threads2"),
            tune_key({.dispatch = Dispatch::Team, .block_z = 8}, geom, 4, "threads2"));
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A DSLASH_TUNE_CACHE that names someone else's file is never written: the run tunes without a cache.
TEST(TuneCacheFile, AFileThatIsNotATuneCacheIsLeftAsItIs) {
  const test::TempDir dir;
  const std::string notes = dir.file("notes.txt");
  std::ofstream(notes) << "notes\n";
  TuneCache cache(notes);
  EXPECT_FALSE(cache.writable());
  EXPECT_EQ(cache.size(), 0u);
  cache.store("8x8x8x8|vnode", "tile=0.0.1.1", 1e-3);
  EXPECT_EQ(file_text(notes), "notes\n");
}

// Our own file, a new name or an empty file: written, and read back.
TEST(TuneCacheFile, ATuneCacheANewNameOrAnEmptyFileIsWritten) {
  const test::TempDir dir;
  for (const std::string& name : {std::string("new.tsv"), std::string("empty.tsv")}) {
    const std::string path = dir.file(name);
    if (name == "empty.tsv") std::ofstream{path};
    TuneCache cache(path);
    EXPECT_TRUE(cache.writable()) << name;
    cache.store("key", "tile=0.0.1.1", 1e-3);
    const TuneCache again(path);
    EXPECT_EQ(again.find("key").value_or("none"), "tile=0.0.1.1") << name;
  }
}

// The tuner: the candidates include the whole-t columns that won mrhs at 48^4, and a slow phase of
// the shared machine during the first pass does not decide the winner.
TEST(Tuner, OffersWholeTColumnsOfYZBlocksThatFitTheLattice) {
  const auto has = [](const std::vector<std::array<index_t, 4>>& c, std::array<index_t, 4> t) { return std::find(c.begin(), c.end(), t) != c.end(); };
  const auto mrhs48 = tile_candidates({24, 48, 48, 48});  // mrhs at 48^4: x/2, y, z, t
  EXPECT_TRUE(has(mrhs48, {0, 8, 8, 0}));
  EXPECT_TRUE(has(mrhs48, {0, 4, 6, 0}));
  EXPECT_TRUE(has(mrhs48, {0, 0, 4, 0}));                  // the columns of whole z-planes stay
  EXPECT_TRUE(has(mrhs48, DslashConfig{}.tile));           // and the default tile
  EXPECT_TRUE(has(mrhs48, {0, 4, 6, 8}));                  // and small blocks in t-blocks of 8 planes
  const auto small = tile_candidates({4, 8, 6, 8});
  for (const auto& t : small) {
    EXPECT_LE(t[1], 8);
    EXPECT_FALSE(t[2] >= 6 && t[3] == 0) << "a column as thick as the lattice is no block";
    EXPECT_LT(t[3], 8) << "a t-block as long as the lattice is a whole-t column, offered once";
  }
  EXPECT_TRUE(has(small, {0, 4, 4, 0}));
  EXPECT_EQ(std::set(small.begin(), small.end()).size(), small.size());
}

TEST(Tuner, TheLeadersAreDecidedByInterleavedRoundsNotByTheFirstPass) {
  // Shape 0 was timed in a fast phase of the machine (1.0), and is 1.4 from then on; shape 2 is
  // always 1.2; shape 3 cannot be launched; the others are slower.
  std::vector<int> calls(6, 0);
  const auto time = [&](std::size_t k) -> std::optional<double> {
    const int n = calls[k]++;
    switch (k) {
      case 0: return n == 0 ? 1.0 : 1.4;
      case 2: return 1.2;
      case 3: return std::nullopt;
      default: return 2.0 + static_cast<double>(k);
    }
  };
  const TunedChoice c = choose_fastest(6, time);
  EXPECT_EQ(c.index, 2u);
  EXPECT_DOUBLE_EQ(c.seconds, 1.2);
  EXPECT_EQ(calls[0], 1 + kRetimeRounds);  // a leader: the first pass and every round
  EXPECT_EQ(calls[5], 1);                  // not among the leaders: timed once
  // One launchable candidate is chosen without rounds; none is an error, not a default.
  int once = 0;
  EXPECT_EQ(choose_fastest(3, [&](std::size_t k) -> std::optional<double> { ++once; return k == 1 ? std::optional(0.5) : std::nullopt; }).index, 1u);
  EXPECT_EQ(once, 3);
  EXPECT_THROW(choose_fastest(2, [](std::size_t) -> std::optional<double> { return std::nullopt; }), std::runtime_error);
}

TEST(Tuner, TiesGoToTheEarlierCandidate) {
  // Six shapes at the same time: the first kRetimedCandidates lead, and the first of them wins.
  std::vector<int> calls(kRetimedCandidates + 2, 0);
  const TunedChoice c = choose_fastest(calls.size(), [&](std::size_t k) -> std::optional<double> { ++calls[k]; return 1.0; });
  EXPECT_EQ(c.index, 0u);
  for (std::size_t k = 0; k < calls.size(); ++k) EXPECT_EQ(calls[k], k < kRetimedCandidates ? 1 + kRetimeRounds : 1) << "shape " << k;
}

// The device host: 300 MiB of L3, and vnode single checkerboarded reading 576 bytes of links,
// 96 of input and writing 96 of output per output site: 384 bytes per lattice site and call.
TEST(Footprint, TheSuggestedLatticeIsTheSmallestOfItsShapeAtFourTimesTheCache) {
  const std::uint64_t l3 = 300 * MiB;
  EXPECT_EQ(dram_lattice({32, 32, 32, 32}, 384, l3, 4), (Coord{44, 44, 44, 44}));  // 40^4: 3.1x; 44^4: 4.6x
  EXPECT_EQ(dram_lattice({16, 16, 16, 32}, 384, l3, 4), (Coord{36, 36, 36, 72}));  // L^3 x 2L stays so
  EXPECT_EQ(dram_lattice({8, 4, 12, 8}, 384, l3, 4), (Coord{44, 44, 44, 44}));     // any other shape: L^4
  EXPECT_EQ(dram_lattice({32, 32, 32, 32}, 768, l3, 4), (Coord{36, 36, 36, 36}));  // double precision
  // Four ranks on the node, each with a quarter of the lattice and of the cache; L a multiple of 8.
  EXPECT_EQ(dram_lattice({32, 32, 32, 32}, 384, l3 / 4, 8, 4), (Coord{48, 48, 48, 48}));
  EXPECT_EQ(dram_lattice({32, 32, 32, 32}, 384, 0, 4), (Coord{32, 32, 32, 32}));  // cache unknown: nothing to suggest
}

// A 32^4 run on a 300 MiB cache: the header warns once, names the variant closest to the cache and
// the lattice to run instead; the JSON says the same. A 48^4 run (and one with the cache unknown)
// does not warn.
TEST(Footprint, ABenchUnderFourTimesTheCacheWarnsAndSuggestsALattice) {
  const auto header = [](const RunInfo& run) {
    std::FILE* f = std::tmpfile();
    print_header(f, run, Ceilings(run.llc));
    std::rewind(f);
    std::string text;
    for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
    std::fclose(f);
    return text;
  };
  RunInfo run = sample_run();
  run.lattice = {32, 32, 32, 32};
  run.llc = choose_last_level_cache({.sysfs = 300 * MiB});
  std::vector<VariantResult> results(2);
  results[0].label = "dslash_mrhs_avx512_f32_range";
  results[0].call_bytes = 32u * 32 * 32 * 32 * (288 + 16 * 96);
  results[1].label = "dslash_vnode_avx512_f32_range";
  results[1].call_bytes = 32u * 32 * 32 * 32 * 384;
  check_footprints(run, results);
  EXPECT_EQ(run.smallest_call, "dslash_vnode_avx512_f32_range");
  EXPECT_NEAR(run.footprint_over_llc, 384.0 / 300.0, 1e-12);
  EXPECT_EQ(run.dram_lattice, (Coord{44, 44, 44, 44}));
  const std::string text = header(run);
  EXPECT_NE(text.find("# FOOTPRINT UNDER 4x THE CACHE: one call of dslash_vnode_avx512_f32_range reads and writes 1.3x the 300.0 MiB"),
            std::string::npos) << text;
  EXPECT_NE(text.find("run --lattice 44x44x44x44,"), std::string::npos) << text;
  const nlohmann::json j = run_json(run, Ceilings(run.llc), nlohmann::json::array({result_json(results[1], run)}), {});
  EXPECT_NEAR(j["meta"]["footprint_over_llc"].get<double>(), 1.28, 1e-12);
  EXPECT_EQ(j["meta"]["dram_lattice"], nlohmann::json({44, 44, 44, 44}));
  EXPECT_NEAR(j["results"][0]["footprint_over_llc"].get<double>(), 1.28, 1e-12);
  EXPECT_EQ(j["results"][0]["call_bytes"], results[1].call_bytes);

  RunInfo large = sample_run();
  large.lattice = {48, 48, 48, 48};
  large.llc = run.llc;
  for (auto& r : results) r.call_bytes = r.call_bytes / (32u * 32 * 32 * 32) * (48u * 48 * 48 * 48);
  check_footprints(large, results);
  EXPECT_NEAR(large.footprint_over_llc, 384.0 * 48 * 48 * 48 * 48 / (300.0 * MiB), 1e-9);
  EXPECT_EQ(large.dram_lattice, (Coord{}));
  EXPECT_EQ(header(large).find("FOOTPRINT"), std::string::npos);
  EXPECT_TRUE(run_json(large, Ceilings(large.llc), nlohmann::json::array(), {})["meta"]["dram_lattice"].is_null());

  RunInfo unknown = sample_run();
  check_footprints(unknown, results);
  EXPECT_EQ(unknown.footprint_over_llc, 0.0);
  EXPECT_EQ(header(unknown).find("FOOTPRINT"), std::string::npos);
  const nlohmann::json u = run_json(unknown, Ceilings(unknown.llc), nlohmann::json::array({result_json(results[0], unknown)}), {});
  EXPECT_TRUE(u["meta"]["footprint_over_llc"].is_null());
  EXPECT_FALSE(u["results"][0].contains("footprint_over_llc"));
}

TEST(Report, CsvRowHasOneValuePerColumn) {
  const RunInfo run = sample_run();
  VariantResult r;
  for (bool traffic : {false, true}) {
    const std::string columns = csv_columns(traffic), row = csv_row(r, run, traffic);
    EXPECT_EQ(std::count(columns.begin(), columns.end(), ','), std::count(row.begin(), row.end(), ',')) << columns << "\n" << row;
  }
}

}  // namespace
}  // namespace dslash::bench
