#include "tests/unit/analysis/frontend_snippets.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "analysis/cuda_toolkit.h"
#include "tests/support/model_dump.h"

namespace fs = std::filesystem;

namespace warplens::testing {

bool cuda_toolkit_available() {
  static const bool available = locate_cuda_toolkit("").found;
  return available;
}

namespace {
fs::path snippet_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("warplens-snippets-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "compile_commands.json") << "[]\n";
    return d;
  }();
  return dir;
}
}  // namespace

Snippet parse_snippet(std::string_view annotated, Toolchain toolchain, AnalysisOptions options) {
  static std::atomic<int> counter{0};
  Snippet s{Annotations(annotated), {}, (snippet_dir() / ("snippet_" + std::to_string(counter++) + ".cu")).string()};
  options.run_static_analyses = false;
  if (toolchain == Toolchain::Prelude) {
    options.cuda_path = "/nonexistent";
  } else if (!cuda_toolkit_available()) {
    static bool told = false;
    if (!told) MESSAGE("no CUDA toolkit: snippets parse with the bundled prelude");
    told = true;
  }
  s.result = analyze({s.path, s.source.code()}, options);
  return s;
}

const Function& Snippet::function(std::string_view name) const {
  const Function* found = nullptr;
  for (const auto& f : result.model.functions) {
    if (f.key == name) return f;
    if (f.name == name) {
      if (found) throw std::invalid_argument("function name '" + std::string(name) + "' is ambiguous; use its key");
      found = &f;
    }
  }
  if (!found) throw std::invalid_argument("no function '" + std::string(name) + "' in the model:\n" + dump());
  return *found;
}

std::vector<const MemoryAccess*> Snippet::accesses_at(const Function& f, const Range& r) const {
  std::vector<const MemoryAccess*> out;
  for (const auto& a : f.accesses)
    if (a.range == r) out.push_back(&a);
  return out;
}

const MemoryAccess& Snippet::access(const Function& f, const Range& r, AccessKind k) const {
  const MemoryAccess* found = nullptr;
  for (const auto* a : accesses_at(f, r))
    if (a->kind == k) {
      if (found) throw std::invalid_argument("two " + std::string(to_string(k)) + " accesses at " + dump_range(r));
      found = a;
    }
  if (!found)
    throw std::invalid_argument("no " + std::string(to_string(k)) + " access at " + dump_range(r) + " in:\n" + dump());
  return *found;
}

std::vector<const Finding*> Snippet::findings(std::string_view code) const {
  std::vector<const Finding*> out;
  for (const auto& f : result.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

std::string Snippet::clang_errors() const {
  std::string s;
  for (const auto& f : result.findings)
    if (f.source == "clang" && f.severity == Severity::Error)
      s += std::to_string(f.location.range.start.line + 1) + ":" + std::to_string(f.location.range.start.column + 1) +
           ": " + f.message + " [" + f.code + "]\n";
  return s;
}

std::string Snippet::dump() const { return dump_model(result.model); }

}  // namespace warplens::testing
