#include "common/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace warplens::common {

namespace {

// Kernel file systems whose "files" are generated on read: sizes are 0 or
// made up, reads may block (/proc/kmsg) or never end.
const char* pseudo_filesystem(long type) {
  switch (static_cast<unsigned long>(type)) {
    case 0x9fa0UL: return "/proc";
    case 0x62656572UL: return "sysfs";
    case 0x64626720UL: return "debugfs";
    case 0x74726163UL: return "tracefs";
    case 0x73636673UL: return "securityfs";
    case 0x27e0ebUL: return "cgroup";
    case 0x63677270UL: return "cgroup2";
    case 0xcafe4a11UL: return "bpffs";
    case 0x1cd1UL: return "devpts";
    case 0x62656570UL: return "configfs";
    case 0xde5e81e4UL: return "efivarfs";
    case 0x6165676cUL: return "pstore";
    case 0x1021994UL: return "devtmpfs";
    default: return nullptr;
  }
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

FileReadResult refuse(FileRefusal kind, const std::string& path, const std::string& why) {
  FileReadResult r;
  r.refusal = kind;
  r.error = path + ": " + why;
  return r;
}

// The checks both entry points share, on a stat result and a statfs type.
FileRefusal check(const struct stat& st, long fs_type, std::size_t max_bytes, std::string& why) {
  if (!S_ISREG(st.st_mode)) {
    why = std::string("not a regular file (") + kind_of(st.st_mode) + "); warplens reads only regular files";
    return FileRefusal::NotRegular;
  }
  if (const char* fs = pseudo_filesystem(fs_type)) {
    why = std::string("a file of the kernel's ") + fs +
          " file system, not a regular file on disk; warplens reads only regular files";
    return FileRefusal::PseudoFile;
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    why = "too large (" + describe_size(static_cast<std::size_t>(st.st_size)) + "; the limit is " +
          describe_size(max_bytes) + ")";
    return FileRefusal::TooLarge;
  }
  return FileRefusal::None;
}

std::string errno_text(int e) { return e == ENOENT ? "no such file" : std::strerror(e); }

}  // namespace

std::string describe_size(std::size_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  } else if (bytes < (std::size_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes < (std::size_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return buf;
}

std::string refusal_reason(const std::string& path, std::size_t max_bytes, FileRefusal* kind) {
  struct stat st {};
  struct statfs sf {};
  FileRefusal k = FileRefusal::None;
  std::string why;
  if (::stat(path.c_str(), &st) != 0) {
    k = FileRefusal::NotFound;
    why = errno_text(errno);
  } else {
    long type = ::statfs(path.c_str(), &sf) == 0 ? static_cast<long>(sf.f_type) : 0;
    k = check(st, type, max_bytes, why);
  }
  if (kind) *kind = k;
  return k == FileRefusal::None ? std::string() : why;
}

FileReadResult read_regular_file(const std::string& path, std::size_t max_bytes) {
  // The path is looked at before it is opened: opening a device can have
  // effects of its own (a tape rewinds, a watchdog starts), and opening a
  // FIFO waits for a writer.
  FileRefusal kind = FileRefusal::None;
  if (std::string why = refusal_reason(path, max_bytes, &kind); kind != FileRefusal::None)
    return refuse(kind, path, why);
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return refuse(FileRefusal::NotFound, path, errno_text(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // And again on what was opened, in case the path changed in between.
  struct stat st {};
  struct statfs sf {};
  if (::fstat(fd, &st) != 0) return refuse(FileRefusal::NotFound, path, errno_text(errno));
  long type = ::fstatfs(fd, &sf) == 0 ? static_cast<long>(sf.f_type) : 0;
  std::string why;
  if (FileRefusal k = check(st, type, max_bytes, why); k != FileRefusal::None) return refuse(k, path, why);

  std::string content;
  content.reserve(static_cast<std::size_t>(st.st_size));
  std::array<char, 64 * 1024> buf{};
  while (true) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return refuse(FileRefusal::NotFound, path, std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) break;
    // A file that grows while it is read is still bounded.
    if (content.size() + static_cast<std::size_t>(n) > max_bytes)
      return refuse(FileRefusal::TooLarge, path,
                    "too large (more than " + describe_size(max_bytes) + ", the limit; it grew while being read)");
    content.append(buf.data(), static_cast<std::size_t>(n));
  }
  FileReadResult r;
  r.content = std::move(content);
  return r;
}

std::string binary_content_reason(std::string_view c) {
  auto starts = [&](std::string_view magic) { return c.substr(0, magic.size()) == magic; };
  if (starts("\x7f" "ELF")) return "an ELF file (an executable, library or object file)";
  if (starts(std::string_view("\xfe\xed\xfa\xce", 4)) || starts(std::string_view("\xfe\xed\xfa\xcf", 4)) ||
      starts(std::string_view("\xce\xfa\xed\xfe", 4)) || starts(std::string_view("\xcf\xfa\xed\xfe", 4)))
    return "a Mach-O file (an executable or library)";
  if (starts("!<arch>\n")) return "an ar archive (a static library)";
  if (starts(std::string_view("\x1f\x8b", 2))) return "gzip-compressed data";
  if (starts(std::string_view("PK\x03\x04", 4))) return "a zip archive";
  if (starts("MZ") && c.substr(0, 64 * 1024).find('\0') != std::string_view::npos) return "a Windows executable";
  if (c.substr(0, 64 * 1024).find('\0') != std::string_view::npos)
    return "binary data (it contains NUL bytes; UTF-16 text must be saved as UTF-8)";
  return {};
}

FileReadResult read_text_file(const std::string& path, std::size_t max_bytes) {
  FileReadResult r = read_regular_file(path, max_bytes);
  if (!r) return r;
  if (std::string why = binary_content_reason(*r.content); !why.empty())
    return refuse(FileRefusal::Binary, path, "a binary file (" + why + "), not source text");
  return r;
}

}  // namespace warplens::common
