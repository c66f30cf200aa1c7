#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
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

// The temporaries being written, for the signal handler to remove: fixed buffers and lock-free
// flags, since a handler may neither allocate nor take a lock.
struct LiveTemporary {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
static_assert(std::atomic<bool>::is_always_lock_free);
LiveTemporary live_temporaries[4];
std::mutex claiming_a_slot;  // between writers on different threads; the handler takes no lock

void remove_temporaries_and_reraise(int sig) {
  for (LiveTemporary& t : live_temporaries)
    if (t.used.load()) ::unlink(t.path);
  // Blocked while the handler runs, the signal ends the process when it returns, as it would have.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      // Only where the signal would end the process anyway: an ignored SIGHUP (nohup) stays ignored.
      struct sigaction now {};
      if (::sigaction(sig, nullptr, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL) continue;
      struct sigaction cleanup {};
      cleanup.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&cleanup.sa_mask);
      ::sigaction(sig, &cleanup, nullptr);
    }
  });
}

// The slot of live_temporaries now holding `path`, or -1 when all are taken (that temporary then
// outlives a signal, as every temporary did before).
int remember_temporary(const std::string& path) {
  install_cleanup_handlers();
  if (path.size() >= PATH_MAX) return -1;
  const std::lock_guard lock(claiming_a_slot);
  for (int i = 0; i < static_cast<int>(std::size(live_temporaries)); ++i) {
    LiveTemporary& t = live_temporaries[i];
    if (t.used.load()) continue;
    std::memcpy(t.path, path.c_str(), path.size() + 1);
    t.used.store(true);  // after the path is whole
    return i;
  }
  return -1;
}

void forget_temporary(int slot) {
  if (slot >= 0) live_temporaries[slot].used.store(false);
}

// `path` with its symbolic links followed to the name they end at, which need not exist yet; after
// 40 links (a loop) it stops, and the caller's stat says so.
fs::path follow_symlinks(fs::path path) {
  std::error_code ec;
  for (int links = 0; links < 40 && fs::is_symlink(path, ec); ++links) {
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) break;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path;
}

fs::path directory_of(const fs::path& file) { return file.has_parent_path() ? file.parent_path() : fs::path("."); }

// A temporary's name next to `name` in `dir`: unique in this process (the counter) and among
// processes (the pid), and `name` shortened so that the whole fits the file system's name limit.
std::string temporary_for(const fs::path& dir, const std::string& name) {
  static std::atomic<unsigned> count{0};
  const std::string suffix = ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++count);
  const long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t name_max = limit > 0 ? static_cast<std::size_t>(limit) : NAME_MAX;
  return (dir / (name.substr(0, name_max > suffix.size() ? name_max - suffix.size() : 0) + suffix)).string();
}

struct Destination {
  fs::path file;  // where the data land: the name given with its symbolic links followed
  bool in_place;  // a character device or a FIFO: opened and written, never replaced
};

// Where a write to `path` goes, or std::runtime_error saying why it cannot.
Destination destination_of(const std::string& path) {
  if (path.empty()) throw std::runtime_error("cannot write to an empty file name");
  const std::string cannot = "cannot write '" + path + "': ";
  if (!fs::path(path).has_filename()) throw std::runtime_error(cannot + "a name ending in '/' is a directory; give a file name");
  const fs::path file = follow_symlinks(path);
  std::error_code ec;
  switch (fs::status(file, ec).type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: break;
    case fs::file_type::character:
    case fs::file_type::fifo: return {file, true};
    case fs::file_type::directory: throw std::runtime_error(cannot + "it is a directory; give a file name");
    case fs::file_type::block: throw std::runtime_error(cannot + "it is a block device");
    case fs::file_type::socket: throw std::runtime_error(cannot + "it is a socket");
    default: throw std::runtime_error(cannot + (ec ? ec.message() : "it is not a regular file"));
  }
  const fs::path dir = directory_of(file);
  if (!fs::exists(dir, ec)) throw std::runtime_error(cannot + "directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(cannot + "'" + dir.string() + "' is not a directory");
  return {file, false};
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  const Destination d = destination_of(path_);
  target_ = d.file.string();
  if (d.in_place) {
    out_.open(target_, std::ios::binary);
    if (!out_) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    return;
  }
  dir_ = directory_of(d.file).string();
  tmp_ = temporary_for(dir_, d.file.filename().string());
  signal_slot_ = remember_temporary(tmp_);  // before the file exists, so that no signal misses it
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const int err = errno;
    forget_temporary(signal_slot_);
    throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(err));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_ && !tmp_.empty()) {
    out_.close();
    std::remove(tmp_.c_str());
  }
  forget_temporary(signal_slot_);
}

void AtomicFileWriter::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw std::runtime_error("write to '" + path_ + "' failed (disk full?)");
  if (tmp_.empty()) {  // written in place: nothing to sync or rename
    committed_ = true;
    return;
  }
  // The data reach the disk before the name points at them, and the new name follows them.
  sync_to_disk(tmp_, O_RDONLY, "'" + tmp_ + "'");
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    throw std::runtime_error("cannot rename onto '" + path_ + "': " + std::strerror(errno));
  committed_ = true;
  sync_to_disk(dir_, O_RDONLY | O_DIRECTORY, "directory '" + dir_ + "'");
}

void check_writable(const std::string& path) {
  if (!destination_of(path).in_place) {
    AtomicFileWriter probe(path);  // creates its temporary, and its destructor removes it
    return;
  }
  // Opening a FIFO would wait for its reader: the permission is asked instead.
  if (::access(follow_symlinks(path).c_str(), W_OK) != 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  const auto same_inode = [&] { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino; };
  const bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
  if (a_exists || b_exists) return a_exists && b_exists && same_inode();
  const fs::path fa = follow_symlinks(a), fb = follow_symlinks(b);
  return fa.filename() == fb.filename() && ::stat(directory_of(fa).c_str(), &sa) == 0 && ::stat(directory_of(fb).c_str(), &sb) == 0 &&
         same_inode();
}

bool is_character_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::string read_file_bytes(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error("'" + path + "' is a directory");
  // The readers take the size first; a pipe (`cat U.nersc | dslash info /dev/stdin`) has none, and
  // opening a FIFO would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode) ? "a pipe" : S_ISCHR(st.st_mode) ? "a character device" : S_ISSOCK(st.st_mode) ? "a socket" : "a special file";
    throw std::runtime_error("'" + path + "' is " + kind + ", not a seekable regular file; give a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (!in || end < 0) throw std::runtime_error("'" + path + "' is not seekable; give a regular file");
  const auto size = static_cast<std::uint64_t>(end);
  check_memory_fits(size, "reading '" + path + "'");
  in.seekg(0);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return bytes;
}

}  // namespace dslash::io
