// io::AtomicFileWriter: what an output name is decides how it is written (replaced atomically, or in
// place), the temporary's name fits the file system, a signal leaves no temporary behind, and
// io::same_file tells when two names are one file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>

#include "io/atomic_file.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_through(const std::string& path, const std::string& text) {
  io::AtomicFileWriter w(path);
  w.stream() << text;
  w.commit();
}

void expect_refused(const std::string& path, const std::string& why) {
  try {
    io::check_writable(path);
    ADD_FAILURE() << "accepted " << path;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(AtomicFile, NothingIsLeftBehindOnFailure) {
  test::TempDir dir;
  {
    io::AtomicFileWriter w(dir.file("out"));
    w.stream() << "partial";
  }  // no commit
  EXPECT_FALSE(fs::exists(dir.file("out")));
  EXPECT_TRUE(fs::is_empty(fs::path(dir.file("out")).parent_path()));
}

TEST(AtomicFile, ABadPathFailsBeforeAnythingIsWrittenAndSaysWhy) {
  test::TempDir dir;
  const std::string here = fs::path(dir.file("x")).parent_path().string();
  expect_refused(here, "is a directory");
  expect_refused(here + "/", "a name ending in '/' is a directory");
  expect_refused(dir.file("missing/out.npy"), "directory '" + dir.file("missing") + "' does not exist");
  { std::ofstream(dir.file("plain")) << "x"; }
  expect_refused(dir.file("plain/out.npy"), "'" + dir.file("plain") + "' is not a directory");
  io::check_writable(dir.file("fine.npy"));  // a good path: checked, and nothing is left behind
  EXPECT_EQ(names_in(here), std::vector<std::string>{"plain"});
}

TEST(AtomicFile, TheTemporaryLiesNextToTheTargetAndCommitReplacesIt) {
  test::TempDir dir;
  const std::string here = fs::path(dir.file("out")).parent_path().string();
  { std::ofstream(dir.file("out")) << "old"; }
  io::AtomicFileWriter w(dir.file("out"));
  w.stream() << "new";
  const std::vector<std::string> during = names_in(here);
  ASSERT_EQ(during.size(), 2u);
  EXPECT_EQ(during[0], "out");
  EXPECT_TRUE(during[1].starts_with("out.tmp." + std::to_string(getpid()) + ".")) << during[1];
  w.commit();
  EXPECT_EQ(names_in(here), std::vector<std::string>{"out"});
  EXPECT_EQ(io::read_file_bytes(dir.file("out")), "new");
}

TEST(AtomicFile, ANameAsLongAsTheFileSystemAllowsIsWritten) {
  test::TempDir dir;
  const std::string here = fs::path(dir.file("x")).parent_path().string();
  const long name_max = ::pathconf(here.c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 8);
  // Two names that differ only at their end, written at once: their shortened temporaries differ too.
  const std::string stem(static_cast<std::size_t>(name_max) - 5, 'a');
  io::AtomicFileWriter first(dir.file(stem + ".npy")), second(dir.file(stem + ".nyp"));
  first.stream() << "first";
  second.stream() << "second";
  first.commit();
  second.commit();
  EXPECT_EQ(io::read_file_bytes(dir.file(stem + ".npy")), "first");
  EXPECT_EQ(io::read_file_bytes(dir.file(stem + ".nyp")), "second");
  EXPECT_EQ(names_in(here).size(), 2u);
}

TEST(AtomicFile, ASymbolicLinkIsKeptAndTheFileItNamesIsWritten) {
  test::TempDir dir;
  fs::create_directory(dir.file("data"));
  { std::ofstream(dir.file("data/real")) << "old"; }
  fs::create_symlink("data/real", dir.file("link"));     // relative: to the link's own directory
  fs::create_symlink("data/new", dir.file("dangling"));  // names a file not there yet
  fs::create_symlink("link", dir.file("link_to_link"));
  write_through(dir.file("link"), "new");
  write_through(dir.file("dangling"), "created");
  EXPECT_TRUE(fs::is_symlink(dir.file("link")));
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling")));
  EXPECT_EQ(io::read_file_bytes(dir.file("data/real")), "new");
  EXPECT_EQ(io::read_file_bytes(dir.file("data/new")), "created");
  write_through(dir.file("link_to_link"), "newer");
  EXPECT_TRUE(fs::is_symlink(dir.file("link_to_link")));
  EXPECT_EQ(io::read_file_bytes(dir.file("data/real")), "newer");
  EXPECT_EQ(names_in(dir.file("data")), (std::vector<std::string>{"new", "real"}));
}

// The readers take a file's size first: what has none (a pipe, /dev/stdin fed by one) is refused
// in words and without waiting for a writer, never read as 2^64 - 1 bytes.
TEST(ReadFile, AnInputWithoutASizeIsRefusedInWords) {
  test::TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  try {
    io::read_file_bytes(fifo);
    ADD_FAILURE() << "a FIFO was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "'" + fifo + "' is a pipe, not a seekable regular file; give a regular file");
  }
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string fd_path = "/proc/self/fd/" + std::to_string(ends[0]);
  EXPECT_THROW(io::read_file_bytes(fd_path), std::runtime_error);
  ::close(ends[0]);
  ::close(ends[1]);
  if (fs::exists("/dev/zero")) {
    try {
      io::read_file_bytes("/dev/zero");
      ADD_FAILURE() << "/dev/zero was read";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "'/dev/zero' is a character device, not a seekable regular file; give a regular file");
    }
  }
}

TEST(AtomicFile, AFifoIsWrittenInPlace) {
  test::TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  io::check_writable(fifo);  // without a reader: the check must not wait for one
  // The read end opened first and without waiting, so the writer's open does not wait either.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  write_through(fifo, "through the pipe");
  char buf[64] = {};
  const ssize_t got = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(std::string(buf, got > 0 ? static_cast<std::size_t>(got) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(names_in(fs::path(fifo).parent_path()), std::vector<std::string>{"pipe"});
}

TEST(AtomicFile, ACharacterDeviceIsWrittenInPlace) {
  test::TempDir dir;
  struct stat dev_null {};
  ASSERT_EQ(::stat("/dev/null", &dev_null), 0);
  // A null device of the test's own where it may make one (as root), so that a writer that
  // replaced the node would not replace the system's /dev/null.
  std::string null = dir.file("null");
  if (::mknod(null.c_str(), S_IFCHR | 0666, dev_null.st_rdev) != 0 || ::access(null.c_str(), W_OK) != 0) {
    ::unlink(null.c_str());
    null = "/dev/null";
  }
  io::check_writable(null);
  write_through(null, "discarded");
  struct stat after {};
  ASSERT_EQ(::stat(null.c_str(), &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, dev_null.st_rdev);
  EXPECT_EQ(names_in(fs::path(dir.file("x")).parent_path()).size(), null == "/dev/null" ? 0u : 1u);
}

TEST(AtomicFile, OtherKindsOfFileAreRefusedAndLeftAlone) {
  test::TempDir dir;
  const std::string socket_path = dir.file("sock");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  expect_refused(socket_path, "it is a socket");
  EXPECT_TRUE(fs::is_socket(socket_path));
  ::close(fd);
  fs::create_directory(dir.file("sub"));
  fs::create_directory_symlink("sub", dir.file("to_sub"));
  expect_refused(dir.file("to_sub"), "it is a directory");
  EXPECT_TRUE(fs::is_symlink(dir.file("to_sub")));
  fs::create_symlink("loop", dir.file("loop"));
  expect_refused(dir.file("loop"), "symbolic links");
  if (::mknod(dir.file("block").c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0) {  // as root only
    expect_refused(dir.file("block"), "it is a block device");
    EXPECT_TRUE(fs::is_block_file(dir.file("block")));
  }
  EXPECT_EQ(names_in(fs::path(socket_path).parent_path()).size(), fs::exists(dir.file("block")) ? 5u : 4u);
}

TEST(AtomicFileDeathTest, ASignalRemovesTheTemporaryAndStillEndsTheProcess) {
  test::TempDir dir;
  const std::string here = fs::path(dir.file("x")).parent_path().string();
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now {};
    ::sigaction(sig, nullptr, &now);
    if (now.sa_handler == SIG_IGN) continue;  // ignored here (nohup): the writer leaves it so
    EXPECT_EXIT(
        {
          io::AtomicFileWriter w(dir.file("out"));
          w.stream() << "partial";
          std::raise(sig);
          std::exit(0);
        },
        testing::KilledBySignal(sig), "")
        << strsignal(sig);
    EXPECT_EQ(names_in(here), std::vector<std::string>{}) << strsignal(sig);
  }
}

TEST(AtomicFile, SameFileComparesDevicesAndInodesNotNames) {
  test::TempDir dir;
  const std::string here = fs::path(dir.file("x")).parent_path().string();
  { std::ofstream(dir.file("a")) << "a"; }
  { std::ofstream(dir.file("b")) << "b"; }
  fs::create_directory(dir.file("sub"));
  fs::create_hard_link(dir.file("a"), dir.file("a_hard"));
  fs::create_symlink("a", dir.file("a_link"));
  fs::create_symlink("new", dir.file("to_new"));
  EXPECT_TRUE(io::same_file(dir.file("a"), here + "/./a"));
  EXPECT_TRUE(io::same_file(dir.file("a"), dir.file("a_hard")));
  EXPECT_TRUE(io::same_file(dir.file("a_link"), dir.file("a")));
  EXPECT_FALSE(io::same_file(dir.file("a"), dir.file("b")));
  // Names of files not there yet: the same name in the same directory, however it is spelled.
  EXPECT_TRUE(io::same_file(dir.file("new"), here + "/sub/../new"));
  EXPECT_TRUE(io::same_file(dir.file("to_new"), dir.file("new")));
  EXPECT_FALSE(io::same_file(dir.file("new"), dir.file("sub/new")));
  EXPECT_FALSE(io::same_file(dir.file("new"), dir.file("a")));
}

// The scratch directory every file test writes in: one directory straight under the temporary folder
// even for a parameterised test, whose suite and test names hold '/' ("Named/TempDirOfAParameterisedTest"),
// and gone, with what was written in it, once the TempDir is.
class TempDirOfAParameterisedTest : public ::testing::TestWithParam<int> {};

TEST_P(TempDirOfAParameterisedTest, IsOneDirectoryUnderTheTemporaryFolderAndIsRemovedAfter) {
  fs::path where;
  {
    test::TempDir dir;
    where = dir.path();
    ASSERT_TRUE(fs::is_directory(where)) << where;
    EXPECT_TRUE(fs::equivalent(where.parent_path(), fs::temp_directory_path())) << where;
    EXPECT_TRUE(where.filename().string().starts_with("dslash_test_Named_TempDirOfAParameterisedTest_")) << where;
    write_through(dir.file("written"), "x");
    fs::create_directories(where / "sub" / "deeper");
  }
  EXPECT_FALSE(fs::exists(where)) << where;
}

INSTANTIATE_TEST_SUITE_P(Named, TempDirOfAParameterisedTest, ::testing::Values(1, 2));

TEST(TempDir, NamesHoldOnlyLettersDigitsUnderscoresAndDashes) {
  EXPECT_EQ(test::TempDir::sanitised_name("AllFormats/NerscRoundTrip_ReadsBack/two-row double.le"),
            "dslash_test_AllFormats_NerscRoundTrip_ReadsBack_two-row_double_le");
}

}  // namespace
}  // namespace dslash
