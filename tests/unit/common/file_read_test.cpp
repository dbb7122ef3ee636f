// common/file_read.h: regular files only, bounded; binary content refused.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/file_read.h"

using namespace warplens::common;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "warplens-file-read-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST_CASE("a regular file is read whole") {
  TempDir d;
  write(d.path / "a.cu", "__global__ void k() {}\n");
  auto r = read_regular_file((d.path / "a.cu").string());
  REQUIRE(r);
  CHECK(*r.content == "__global__ void k() {}\n");
  CHECK(r.refusal == FileRefusal::None);
  write(d.path / "empty", "");
  CHECK(read_regular_file((d.path / "empty").string()).content == std::string());
}

TEST_CASE("devices, FIFOs, directories, /proc and missing files are refused at once, with one line") {
  TempDir d;
  auto check_refused = [](const std::string& path, FileRefusal kind, const std::string& expected) {
    auto start = std::chrono::steady_clock::now();
    auto r = read_regular_file(path);
    CHECK_MESSAGE(!r, path);
    CHECK_MESSAGE(r.refusal == kind, path);
    CHECK(r.error == expected);
    CHECK(r.error.find('\n') == std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  };
  check_refused("/dev/zero", FileRefusal::NotRegular,
                "/dev/zero: not a regular file (a character device); warplens reads only regular files");
  check_refused("/dev/null", FileRefusal::NotRegular,
                "/dev/null: not a regular file (a character device); warplens reads only regular files");
  // A FIFO nobody writes to: opening it for reading would wait forever.
  std::string fifo = (d.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  check_refused(fifo, FileRefusal::NotRegular,
                fifo + ": not a regular file (a FIFO (named pipe)); warplens reads only regular files");
  // stdin as the test runs it (a pipe, a terminal or /dev/null): never a regular file we would block on.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::string self_fd = "/proc/self/fd/" + std::to_string(fds[0]);
  check_refused(self_fd, FileRefusal::NotRegular,
                self_fd + ": not a regular file (a FIFO (named pipe)); warplens reads only regular files");
  ::close(fds[0]);
  ::close(fds[1]);
  check_refused(d.path.string(), FileRefusal::NotRegular,
                d.path.string() + ": not a regular file (a directory); warplens reads only regular files");
  check_refused("/proc/self/status", FileRefusal::PseudoFile,
                "/proc/self/status: a file of the kernel's /proc file system, not a regular file on disk; warplens "
                "reads only regular files");
  check_refused((d.path / "missing").string(), FileRefusal::NotFound, (d.path / "missing").string() + ": no such file");
  // A socket.
  std::string sock = (d.path / "s").string();
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  check_refused(sock, FileRefusal::NotRegular, sock + ": not a regular file (a socket); warplens reads only regular files");
  ::close(s);
  // A symlink to a device is the device.
  fs::create_symlink("/dev/zero", d.path / "zero.cu");
  CHECK(read_regular_file((d.path / "zero.cu").string()).refusal == FileRefusal::NotRegular);
}

TEST_CASE("the size cap") {
  TempDir d;
  write(d.path / "big", std::string(5000, 'x'));
  auto r = read_regular_file((d.path / "big").string(), 4096);
  CHECK(r.refusal == FileRefusal::TooLarge);
  CHECK(r.error == (d.path / "big").string() + ": too large (4.9 KiB; the limit is 4.0 KiB)");
  CHECK(read_regular_file((d.path / "big").string(), 5000));
}

TEST_CASE("binary content: one line, naming what it is") {
  TempDir d;
  auto elf = read_text_file("/proc/self/exe");  // a symlink into /proc, to a regular file on disk
  CHECK(elf.refusal == FileRefusal::Binary);
  CHECK(elf.error.find("a binary file (an ELF file (an executable, library or object file)), not source text") !=
        std::string::npos);
  write(d.path / "utf16.cu", std::string("\xff\xfe_\0_\0", 6));
  CHECK(read_text_file((d.path / "utf16.cu").string()).error ==
        (d.path / "utf16.cu").string() +
            ": a binary file (binary data (it contains NUL bytes; UTF-16 text must be saved as UTF-8)), not source text");
  CHECK(binary_content_reason("__global__ void k() {}") == "");
  CHECK(binary_content_reason("caf\xc3\xa9 \xff latin-1 is still text") == "");
  CHECK(binary_content_reason(std::string("!<arch>\n", 8)) == "an ar archive (a static library)");
}

TEST_CASE("refusal_reason looks without reading") {
  TempDir d;
  write(d.path / "a.cu", "x");
  CHECK(refusal_reason((d.path / "a.cu").string()) == "");
  CHECK(refusal_reason("/dev/zero") == "not a regular file (a character device); warplens reads only regular files");
  FileRefusal kind{};
  CHECK(refusal_reason((d.path / "a.cu").string(), 0, &kind) == "too large (1 bytes; the limit is 0 bytes)");
  CHECK(kind == FileRefusal::TooLarge);
}
