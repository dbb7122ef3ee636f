// Clang's diagnostics -> findings, for the target file of a parse: the
// codes (`-Wflag` or Clang's internal name), ranges, notes as related
// information, the errors Clang reports on CUDA that nvcc accepts dropped,
// dynamic parallelism's and missing headers' errors explained, at most 1000.
// Internal to analysis/clang/.
#pragma once

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceLocation.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/source_range.h"

namespace clang {
class Preprocessor;
class SourceManager;
}  // namespace clang

namespace warplens::clang_frontend {

// Clang diagnostics -> findings. Only the target file's diagnostics become
// findings; errors inside headers are reported once, at the #include line of
// the target file that leads to them.
class DiagnosticCollector : public clang::DiagnosticConsumer {
 public:
  DiagnosticCollector(std::string target, bool degraded, bool relocatable)
      : target_(std::move(target)), degraded_(degraded), relocatable_(relocatable) {}

  void BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor* pp) override;
  void EndSourceFile() override { lo_ = nullptr; }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;

  std::vector<Finding> take_findings();

 private:
  struct HeaderErrors {
    size_t index;
    int count;
    std::string header;
    std::string first;
  };

  bool is_target(const clang::SourceManager& sm, clang::FileID fid);

  std::string file_name(const clang::SourceManager& sm, clang::SourceLocation loc) const;

  Position position(const clang::SourceManager& sm, clang::SourceLocation loc) const;

  Range token_range(const clang::SourceManager& sm, clang::SourceLocation loc) const;

  // The diagnostic's own range when one contains its location, else its token.
  Range diagnostic_range(const clang::SourceManager& sm, clang::SourceLocation loc, const clang::Diagnostic& info);


  std::string target_;
  bool degraded_;
  bool relocatable_;
  int missing_header_ = -1;       // the first "file not found" finding
  int hidden_after_missing_ = 0;  // errors after it, not reported
  std::size_t dropped_ = 0;
  std::string last_code_;                      // the code of findings_[last_]
  std::set<std::size_t> device_launch_only_;  // findings nvcc would not report (dynamic parallelism with -rdc)
  const clang::LangOptions* lo_ = nullptr;
  clang::FileID target_id_;
  std::vector<Finding> findings_;
  int last_ = -1;  // index of the finding notes attach to
  std::map<unsigned, HeaderErrors> header_errors_;
};

}  // namespace warplens::clang_frontend
