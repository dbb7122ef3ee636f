// Copies of every module (cubin) the program loads, and the mapping from a
// SASS instruction (function, PC offset) to its source line.
//
// CUPTI hands the cubin to the MODULE_LOADED resource callback and the
// pointer is valid only during the callback, so the bytes are copied. With
// lazy module loading (the CUDA default) that happens at a module's first
// launch. The line table comes from -lineinfo (or -G); without it every PC
// resolves to line 0 and the profile says so.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace warplens::inject {

struct SourceLine {
  std::string file;  // dirName/fileName as recorded by the compiler; empty when unknown
  int line = 0;      // 1-based; 0 = unknown
};

class CubinStore {
 public:
  explicit CubinStore(std::size_t max_bytes = std::size_t(2) << 30) : max_bytes_(max_bytes) {}

  // Copies the module. Returns false when the size cap was reached (the
  // module is then not kept and its PCs cannot be mapped).
  bool add(std::uint32_t module_id, const char* data, std::size_t size);

  // Maps a PC of `function` (mangled) to a source line. Tries the cubin that
  // resolved this function before, then every cubin (the record's 32-bit
  // cubinCrc does not match cuptiGetCubinCrc's 64 bits, see the reference).
  // Results are cached, including failures.
  SourceLine resolve(const std::string& function, std::uint32_t pc);

  std::size_t count() const;
  bool capped() const;

 private:
  bool try_cubin(std::size_t index, const std::string& function, std::uint32_t pc, SourceLine* out);

  mutable std::mutex mu_;
  std::vector<std::string> cubins_;
  std::map<std::string, std::size_t> function_cubin_;  // function -> index into cubins_
  std::map<std::pair<std::string, std::uint32_t>, SourceLine> cache_;
  static constexpr int kMaxFailedScans = 3;
  std::map<std::string, int> failed_scans_;  // full scans that found no line, per function
  std::size_t bytes_ = 0;
  std::size_t max_bytes_;
  bool capped_ = false;
};

}  // namespace warplens::inject
