#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "dslash/lattice/geometry.hpp"

namespace dslash::io {

namespace {

namespace fs = std::filesystem;

// fsync of a file or directory by name; `what` names it in the error.
void sync_to_disk(const std::string& name, int flags, const std::string& what) {
  const int fd = ::open(name.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + what + " to sync it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // EINVAL: a file system that cannot sync this kind of file (some cannot sync directories).
  if (rc != 0 && err != EINVAL) throw std::runtime_error("cannot sync " + what + " to disk: " + std::strerror(err));
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw std::runtime_error("cannot write to an empty file name");
  const fs::path target(path_);
  const std::string cannot = "cannot write '" + path_ + "': ";
  std::error_code ec;
  if (!target.has_filename()) throw std::runtime_error(cannot + "a name ending in '/' is a directory; give a file name");
  if (fs::is_directory(target, ec)) throw std::runtime_error(cannot + "it is a directory; give a file name");
  dir_ = target.has_parent_path() ? target.parent_path().string() : ".";
  if (!fs::exists(dir_, ec)) throw std::runtime_error(cannot + "directory '" + dir_ + "' does not exist");
  if (!fs::is_directory(dir_, ec)) throw std::runtime_error(cannot + "'" + dir_ + "' is not a directory");
  tmp_ = (fs::path(dir_) / (target.filename().string() + ".tmp." + std::to_string(getpid()))).string();
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw std::runtime_error(cannot + std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    out_.close();
    std::remove(tmp_.c_str());
  }
}

void AtomicFileWriter::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw std::runtime_error("write to '" + path_ + "' failed (disk full?)");
  // The data reach the disk before the name points at them, and the new name follows them.
  sync_to_disk(tmp_, O_RDONLY, "'" + tmp_ + "'");
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename onto '" + path_ + "': " + std::strerror(errno));
  committed_ = true;
  sync_to_disk(dir_, O_RDONLY | O_DIRECTORY, "directory '" + dir_ + "'");
}

void check_writable(const std::string& path) { AtomicFileWriter probe(path); }  // the destructor removes its temporary

std::string read_file_bytes(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error("'" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  check_memory_fits(size, "reading '" + path + "'");
  in.seekg(0);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return bytes;
}

}  // namespace dslash::io
