// The files the model may read: the kernel's own file (as the editor has it,
// unsaved changes included) and the files under its directory. Nothing above
// that directory, no hidden files or directories (".env", ".git", ...), no
// symlinks that lead out of it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "analysis/analyzer.h"

namespace warplens::agent::llm {

class KernelDirectory {
 public:
  explicit KernelDirectory(const SourceFile& kernel_file);

  struct Read {
    bool ok = false;
    std::string text;          // the contents (at most max_bytes)
    bool truncated = false;
    std::string shown_path;    // relative to the directory, for the model
    std::string error;         // why not, for the model
  };
  // `path` relative to the kernel's directory (or absolute inside it).
  Read read(std::string_view path, std::size_t max_bytes) const;

  // Names in a directory under the root ("" = the root itself), one per line,
  // directories with a trailing '/'; hidden entries left out. `error` is set
  // (and the result empty) when the path is not allowed.
  std::string list(std::string_view path, std::string& error) const;

  // The kernel file's name relative to the directory ("transpose.cu").
  std::string kernel_file_name() const;

 private:
  // The allowed absolute path for `path`, or empty with `error` set.
  std::filesystem::path resolve(std::string_view path, std::string& error) const;

  const SourceFile& file_;
  std::filesystem::path root_;         // canonical directory of the kernel file
  std::filesystem::path kernel_path_;  // canonical (or lexically normal) kernel file path
};

}  // namespace warplens::agent::llm
