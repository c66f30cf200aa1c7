#pragma once
// The host's caches as the system describes them: sysfs, CPUID and the C library, each of which a
// VM may leave silent or get wrong (a 2-vCPU AMD VM: sysfs 32 MiB, sysconf 320 MiB; later no sysfs
// and CPUID 508 MiB). The environment variable DSLASH_LLC_BYTES (a size such as 32M, 32768K or
// 33554432) overrides them all. The kernels ask it whether their links fit the last-level cache;
// the bench reports it, and where it came from, in its run header.
#include <cstdint>
#include <string>

namespace dslash {

// The size each source reports for the largest cache, 0 where it is silent.
struct CacheReadings {
  std::uint64_t user = 0;  // DSLASH_LLC_BYTES
  std::uint64_t sysfs = 0, cpuid = 0, sysconf = 0;
};
// The sizes DSLASH_LLC_BYTES may give: every real last-level cache lies between, and a value past
// them is a typo (the bench's triad spans 4x the cache).
inline constexpr std::uint64_t kMinUserCacheBytes = std::uint64_t{1} << 10, kMaxUserCacheBytes = std::uint64_t{4} << 30;
// Throws std::invalid_argument when DSLASH_LLC_BYTES is set but not a size from 1K to 4G.
CacheReadings read_cache_sources();
// The first source that knows, in the order DSLASH_LLC_BYTES, sysfs, CPUID, sysconf, and its name;
// {0, "unknown"} when none does.
struct CacheReading {
  std::uint64_t bytes = 0;
  const char* source = "unknown";
};
CacheReading first_known(const CacheReadings& readings);
// first_known(read_cache_sources()).bytes, read once.
std::uint64_t host_last_level_cache_bytes();
// A sysfs cache size ("32768K", "1M", "512"), in bytes; 0 if unreadable or past 64 bits.
std::uint64_t parse_cache_size(const std::string& text);
// A cache described by CPUID leaf 4 (Intel) or 0x8000001D (AMD): ways x partitions x line x sets.
std::uint64_t cpuid_cache_bytes(std::uint32_t ebx, std::uint32_t ecx);

}  // namespace dslash
