#include "analysis/clang/guarded_fs.h"

#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>

#include "common/file_read.h"

namespace warplens::clang_frontend {

namespace {

// An opened file whose contents were already read and checked.
class CheckedFile : public llvm::vfs::File {
 public:
  CheckedFile(llvm::vfs::Status status, std::unique_ptr<llvm::MemoryBuffer> buffer)
      : status_(std::move(status)), buffer_(std::move(buffer)) {}
  ~CheckedFile() override = default;

  llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t, bool,
                                                              bool) override {
    // A copy: the caller may keep it after this file is closed.
    return llvm::MemoryBuffer::getMemBufferCopy(buffer_->getBuffer(), name);
  }
  std::error_code close() override { return {}; }

 private:
  llvm::vfs::Status status_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
};

// What Clang prints for a refused file ("cannot open file '/dev/stdin': ...").
class RefusalCategory : public std::error_category {
 public:
  const char* name() const noexcept override { return "warplens"; }
  std::string message(int) const override { return "warplens reads only regular text files"; }
};

const std::error_category& refusal_category() {
  static RefusalCategory category;
  return category;
}

}  // namespace

GuardedFileSystem::GuardedFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::size_t max_file_bytes)
    : ProxyFileSystem(std::move(fs)), max_file_bytes_(max_file_bytes) {}

std::error_code GuardedFileSystem::refuse(const std::string& line) {
  std::lock_guard lock(mu_);
  if (std::find(refusals_.begin(), refusals_.end(), line) == refusals_.end() && refusals_.size() < 32)
    refusals_.push_back(line);
  return {1, refusal_category()};
}

std::vector<std::string> GuardedFileSystem::refusals() const {
  std::lock_guard lock(mu_);
  return refusals_;
}

llvm::ErrorOr<llvm::vfs::Status> GuardedFileSystem::status(const llvm::Twine& path) {
  auto st = ProxyFileSystem::status(path);
  if (!st || st->isDirectory()) return st;
  if (st->getType() != llvm::sys::fs::file_type::regular_file) {
    const std::string p = path.str();
    std::string why = common::refusal_reason(p, max_file_bytes_);
    return refuse(p + ": " + (why.empty() ? std::string("not a regular file; warplens reads only regular files") : why));
  }
  return st;
}

llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> GuardedFileSystem::openFileForRead(const llvm::Twine& twine) {
  const std::string path = twine.str();
  // Looked at before it is opened (opening a FIFO blocks, a device may act),
  // then checked again on what was opened.
  auto real_status = ProxyFileSystem::status(path);
  if (real_status && real_status->getType() == llvm::sys::fs::file_type::regular_file) {
    common::FileRefusal kind = common::FileRefusal::None;
    std::string why = common::refusal_reason(path, max_file_bytes_, &kind);
    if (kind != common::FileRefusal::None && kind != common::FileRefusal::NotFound)
      return refuse(path + ": " + why);
  } else if (real_status && !real_status->isDirectory()) {
    std::string why = common::refusal_reason(path, max_file_bytes_);
    return refuse(path + ": " + (why.empty() ? std::string("not a regular file") : why));
  }
  auto file = ProxyFileSystem::openFileForRead(path);
  if (!file) return file;
  auto st = (*file)->status();
  if (!st) return st.getError();
  if (st->getType() != llvm::sys::fs::file_type::regular_file)
    return refuse(path + ": not a regular file; warplens reads only regular files");
  if (st->getSize() > max_file_bytes_)
    return refuse(path + ": too large (" + common::describe_size(st->getSize()) + "; the limit is " +
                  common::describe_size(max_file_bytes_) + ")");
  auto buffer = (*file)->getBuffer(path, static_cast<int64_t>(st->getSize()), true, false);
  if (!buffer) return buffer.getError();
  if (std::string why = common::binary_content_reason((*buffer)->getBuffer()); !why.empty())
    return refuse(path + ": a binary file (" + why + "), not source text");
  return std::unique_ptr<llvm::vfs::File>(new CheckedFile(std::move(*st), std::move(*buffer)));
}

}  // namespace warplens::clang_frontend
