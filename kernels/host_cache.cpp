#include "kernels/host_cache.hpp"

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <charconv>
#include <limits>
#include <string_view>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace dslash {

namespace {
// The largest cache of cpu0 in sysfs (absent on some VMs and containers).
std::uint64_t sysfs_cache_bytes() {
  std::uint64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string size;
    if (size_file >> size) largest = std::max(largest, parse_cache_size(size));
  }
  return largest;
}

// The largest cache CPUID describes: leaf 4 on Intel, 0x8000001D on AMD with topology extensions,
// else AMD's legacy 0x80000006 (L3 in 512 KiB units, L2 in KiB). 0 off x86 or when CPUID is silent.
std::uint64_t cpuid_largest_cache_bytes() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  const unsigned max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  const bool intel = std::strcmp(vendor, "GenuineIntel") == 0;
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;
  const unsigned max_extended = __get_cpuid_max(0x80000000u, nullptr);
  const bool topology_extensions = amd && max_extended >= 0x8000001Du && __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c >> 22 & 1);
  std::uint64_t largest = 0;
  if ((intel && max_leaf >= 4) || topology_extensions) {
    const unsigned leaf = intel ? 4 : 0x8000001Du;
    for (unsigned sub = 0; sub < 16 && __get_cpuid_count(leaf, sub, &a, &b, &c, &d) && (a & 0x1f) != 0; ++sub)
      largest = std::max(largest, cpuid_cache_bytes(b, c));
  } else if (amd && max_extended >= 0x80000006u && __get_cpuid(0x80000006u, &a, &b, &c, &d)) {
    largest = std::max(std::uint64_t{d >> 18} << 19, std::uint64_t{c >> 16} << 10);
  }
  return largest;
#else
  return 0;
#endif
}

std::uint64_t user_cache_bytes() {
  const char* text = std::getenv("DSLASH_LLC_BYTES");
  if (!text || !*text) return 0;
  const std::uint64_t bytes = parse_cache_size(text);
  if (bytes < kMinUserCacheBytes || bytes > kMaxUserCacheBytes)
    throw std::invalid_argument(std::string("DSLASH_LLC_BYTES='") + text +
                                "': expected a cache size from 1K to 4G, such as 32M, 32768K or 33554432");
  return bytes;
}

std::uint64_t sysconf_cache_bytes() {
  long largest = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  for (int name : {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) largest = std::max(largest, sysconf(name));
#endif
  return static_cast<std::uint64_t>(largest);
}
}  // namespace

CacheReadings read_cache_sources() { return {user_cache_bytes(), sysfs_cache_bytes(), cpuid_largest_cache_bytes(), sysconf_cache_bytes()}; }

CacheReading first_known(const CacheReadings& readings) {
  for (const CacheReading& r : {CacheReading{readings.user, "DSLASH_LLC_BYTES"}, CacheReading{readings.sysfs, "sysfs"},
                                CacheReading{readings.cpuid, "cpuid"}, CacheReading{readings.sysconf, "sysconf"}})
    if (r.bytes > 0) return r;
  return {};
}

std::uint64_t host_last_level_cache_bytes() {
  static const std::uint64_t bytes = first_known(read_cache_sources()).bytes;
  return bytes;
}

std::uint64_t parse_cache_size(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return 0;  // no digits, or past 64 bits
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  const int shift = unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : unit.empty() ? 0 : -1;
  if (shift < 0 || value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return 0;  // an unknown unit, or past 64 bits
  return value << shift;
}

std::uint64_t cpuid_cache_bytes(std::uint32_t ebx, std::uint32_t ecx) {
  const std::uint64_t ways = (ebx >> 22) + 1, partitions = ((ebx >> 12) & 0x3ff) + 1, line = (ebx & 0xfff) + 1, sets = std::uint64_t{ecx} + 1;
  return ways * partitions * line * sets;
}

}  // namespace dslash
