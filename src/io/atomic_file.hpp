#pragma once
// Writes go to "<name>.tmp.<pid>" in the target's own directory and are renamed onto the target
// only by commit(), after the data reach the disk, so neither a failure nor a crash leaves a
// partial output file behind.
#include <fstream>
#include <string>

namespace dslash::io {

class AtomicFileWriter {
 public:
  // Throws std::runtime_error saying what is wrong with `path` (a directory, a missing directory,
  // no permission) before anything is written.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();  // removes the temporary file unless committed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ofstream& stream() { return out_; }
  // Flush and fsync the temporary, rename it onto the target, fsync the directory; throws
  // std::runtime_error on failure.
  void commit();

 private:
  std::string path_, dir_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Fails as AtomicFileWriter would on `path`, and leaves nothing behind: a run checks its output
// files with this before it computes, not after.
void check_writable(const std::string& path);

// The whole file, or std::runtime_error naming the path and the reason.
std::string read_file_bytes(const std::string& path);

}  // namespace dslash::io
