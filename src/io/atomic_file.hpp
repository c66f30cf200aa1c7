#pragma once
// How an output is written depends on what its name is now:
//  - a new name or a regular file: to a temporary in the same directory ("<name>.tmp.<pid>.<n>",
//    the name shortened to fit the file system's limit), synced, then renamed onto it, so neither
//    a failure nor a crash leaves a partial output file behind;
//  - a symbolic link: the same for the file it names, and the link stays;
//  - a character device or a FIFO (/dev/null, a named pipe): opened and written in place;
//  - anything else (a directory, a block device, a socket): refused.
// SIGINT, SIGTERM and SIGHUP remove the live temporaries before they end the process.
#include <fstream>
#include <string>

namespace dslash::io {

class AtomicFileWriter {
 public:
  // Throws std::runtime_error saying what is wrong with `path` (a directory, a missing directory,
  // no permission, a socket) before anything is written.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();  // removes the temporary file unless committed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ofstream& stream() { return out_; }
  // Flush; for a temporary, fsync it, rename it onto the target and fsync the directory; throws
  // std::runtime_error on failure.
  void commit();

 private:
  std::string path_;    // as given, for messages
  std::string target_;  // where the data land: path_ with its symbolic links followed
  std::string dir_, tmp_;  // empty when written in place
  std::ofstream out_;
  int signal_slot_ = -1;  // this temporary's place in the list a signal removes
  bool committed_ = false;
};

// Fails as AtomicFileWriter would on `path`, and leaves nothing behind: a run checks its output
// files with this before it computes, not after. A FIFO is checked without waiting for a reader.
void check_writable(const std::string& path);

// True when the two names are one file: the same device and inode, symbolic links followed; for
// names of files not there yet, the same name in the same directory.
bool same_file(const std::string& a, const std::string& b);
// True when `path` (its symbolic links followed) is a character device, such as /dev/null.
bool is_character_device(const std::string& path);

// The whole file, or std::runtime_error naming the path and the reason: one that cannot be read
// by its size (a pipe, a character device) is refused without being opened.
std::string read_file_bytes(const std::string& path);

}  // namespace dslash::io
