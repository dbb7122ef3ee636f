// A private temporary directory (mkdtemp under $TMPDIR or /tmp), removed
// with its contents when the object goes away unless keep() was called.
#pragma once

#include <string>

namespace warplens::profile {

class ScratchDir {
 public:
  // Creates "<tmp>/<prefix>XXXXXX". ok() is false (and error() says why)
  // when that fails.
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  void keep() { keep_ = true; }

 private:
  std::string path_;
  std::string error_;
  bool keep_ = false;
};

}  // namespace warplens::profile
