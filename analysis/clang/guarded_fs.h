// The file system the front end reads through: regular files only, bounded,
// text only (common/file_read.h's rule, applied to every #include, -include
// and #embed Clang resolves).
//
// `#include "/dev/stdin"` would otherwise read the client's next LSP frames
// (the server's stdin), `/dev/zero` would never end, a FIFO would block the
// analysis thread forever, `#include "/bin/ls"` would yield megabytes of
// diagnostics. Each refusal is recorded, so the parse can say why the file
// was "not found". Internal to analysis/clang/.
#pragma once

#include <llvm/Support/VirtualFileSystem.h>

#include <mutex>
#include <string>
#include <vector>

namespace warplens::clang_frontend {

class GuardedFileSystem : public llvm::vfs::ProxyFileSystem {
 public:
  GuardedFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::size_t max_file_bytes);

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override;

  // "/dev/stdin: not a regular file (a FIFO (named pipe)); ...", once per path.
  std::vector<std::string> refusals() const;

 private:
  std::error_code refuse(const std::string& line);

  std::size_t max_file_bytes_;
  mutable std::mutex mu_;
  std::vector<std::string> refusals_;
};

}  // namespace warplens::clang_frontend
