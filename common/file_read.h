// Reading a file that someone else named: a path from the editor, from a
// setting, from compile_commands.json, from the command line, an #include.
//
// Only regular files are read. Devices (/dev/zero, /dev/stdin), FIFOs,
// sockets and the kernel's pseudo file systems (/proc, /sys) are refused
// with a one-line reason: reading them can block forever (a FIFO, the
// client's own LSP pipe behind /dev/stdin) or never end (/dev/zero). The
// check is made on the opened descriptor (O_NONBLOCK, so opening a FIFO
// cannot block), not on the path, so a file swapped after the check is
// still checked. At most `max_bytes` are read; a larger file is refused.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warplens::common {

// 64 MiB: far beyond any source file, profile or manifest warplens reads.
inline constexpr std::size_t kDefaultMaxFileBytes = std::size_t{64} << 20;

enum class FileRefusal {
  None,
  NotFound,      // no such file, or not readable (errno text in the message)
  NotRegular,    // a directory, device, FIFO, socket
  PseudoFile,    // /proc, /sys and other kernel file systems
  TooLarge,      // over max_bytes
  Binary,        // read_text_file only: NUL bytes or an executable's magic
};

struct FileReadResult {
  std::optional<std::string> content;  // set on success
  FileRefusal refusal = FileRefusal::None;
  std::string error;                   // one line: "/dev/zero: not a regular file (a character device)"
  explicit operator bool() const { return content.has_value(); }
};

// The bytes of `path`, or why not.
FileReadResult read_regular_file(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes);

// read_regular_file, then refuses content that is not text: a NUL byte in
// the first 64 KiB, or the magic of an ELF / Mach-O / PE executable or an
// archive ("a binary file (an ELF executable), not source text").
FileReadResult read_text_file(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes);

// What read_text_file says about content already in memory (an editor
// buffer): empty when it looks like text, else the reason ("an ELF
// executable", "contains NUL bytes").
std::string binary_content_reason(std::string_view content);

// Why `path` may not be read, without reading it: empty when it is a
// regular file of at most `max_bytes` outside the pseudo file systems.
// For callers that hand the path to another reader (Clang's file system).
std::string refusal_reason(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes,
                           FileRefusal* kind = nullptr);

// "12.3 MiB", "512 bytes"
std::string describe_size(std::size_t bytes);

}  // namespace warplens::common
