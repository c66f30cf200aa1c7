#pragma once
// Writes go to "<path>.tmp.<pid>" and are renamed onto <path> only by commit(), so a failure never
// leaves a partial output file behind.
#include <fstream>
#include <string>

namespace dslash::io {

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();  // removes the temporary file unless committed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ofstream& stream() { return out_; }
  void commit();  // flush, check, rename; throws std::runtime_error on failure

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// The whole file, or std::runtime_error naming the path and the reason.
std::string read_file_bytes(const std::string& path);

}  // namespace dslash::io
