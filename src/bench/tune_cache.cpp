#include "bench/tune_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"

namespace dslash::bench {

std::string TuneCache::default_path() {
  if (const char* p = std::getenv("DSLASH_TUNE_CACHE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/dslash/tunecache.tsv";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/dslash/tunecache.tsv";
  return "dslash_tunecache.tsv";
}

TuneCache::TuneCache(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  if (!in) return;  // no cache yet
  std::string line;
  if (!std::getline(in, line)) return;  // an empty file: nothing to lose by writing it
  if (line != kHeader) {
    // Someone else's file (or another version's): reading it is wrong and replacing it would lose it.
    writable_ = false;
    std::fprintf(stderr, "warning: tune cache %s is not a '%s' file: leaving it as it is and running without a tune cache\n",
                 path_.c_str(), kHeader);
    return;
  }
  std::map<std::string, Entry> entries;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string key, value, seconds;
    if (!std::getline(fields, key, '\t') || !std::getline(fields, value, '\t') || !std::getline(fields, seconds) ||
        key.empty() || value.empty()) {
      std::fprintf(stderr, "warning: tune cache %s is corrupt at line %d; ignoring it\n", path_.c_str(), number);
      return;
    }
    char* end = nullptr;
    const double s = std::strtod(seconds.c_str(), &end);
    if (end == seconds.c_str() || *end != '\0' || !(s > 0)) {
      std::fprintf(stderr, "warning: tune cache %s is corrupt at line %d; ignoring it\n", path_.c_str(), number);
      return;
    }
    entries[key] = {value, s};
  }
  entries_ = std::move(entries);
}

std::optional<std::string> TuneCache::find(const std::string& key) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.value;
}

void TuneCache::store(const std::string& key, const std::string& value, double seconds) {
  entries_[key] = {value, seconds};
  if (!writable_) return;
  try {
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    io::AtomicFileWriter out(path_);
    out.stream() << kHeader << '\n';
    for (const auto& [k, e] : entries_) out.stream() << k << '\t' << e.value << '\t' << e.seconds << '\n';
    out.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: cannot write tune cache %s: %s\n", path_.c_str(), e.what());
  }
}

}  // namespace dslash::bench
