#pragma once
// A persistent tune cache (as QUDA's tunecache.tsv): one tab-separated line per tuned launch,
// keyed by lattice, kernel, dispatch, precision, SIMD set, nrhs, parity, layout, gauge compression
// (a shape tuned for 18 reals per link is not the one for 12), threads and build id.
// Path: $DSLASH_TUNE_CACHE, else $XDG_CACHE_HOME/dslash/tunecache.tsv, else ~/.cache/dslash/tunecache.tsv.
// A file of ours with a malformed line is reported on stderr and ignored, never fatal, and rewritten
// with this run's entries; a file that does not start with kHeader (not a tune cache, or another
// version's) is reported and never written: the run goes on without a cache. Only tuned results are
// ever written, so a default never replaces a tuned entry.
#include <map>
#include <optional>
#include <string>

namespace dslash::bench {

class TuneCache {
 public:
  static constexpr const char* kHeader = "# dslash tune cache v1";

  explicit TuneCache(std::string path);
  static std::string default_path();

  const std::string& path() const { return path_; }
  std::optional<std::string> find(const std::string& key) const;
  // Records a tuned value and rewrites the file atomically; a write failure is reported, not fatal.
  // Leaves a file that is not a tune cache alone (writable() false).
  void store(const std::string& key, const std::string& value, double seconds);
  std::size_t size() const { return entries_.size(); }
  bool writable() const { return writable_; }

 private:
  struct Entry {
    std::string value;
    double seconds;
  };
  std::string path_;
  std::map<std::string, Entry> entries_;
  bool writable_ = true;
};

}  // namespace dslash::bench
