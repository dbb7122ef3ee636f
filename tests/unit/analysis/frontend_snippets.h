// Parsing annotated CUDA snippets through the real front end, for the
// frontend_*_test.cpp files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.h"
#include "tests/support/annotations.h"

namespace warplens::testing {

enum class Toolchain {
  Cuda,     // the installed toolkit (mode A); falls back to Prelude when there is none
  Prelude,  // no toolkit: warplens's bundled prelude (degraded mode B)
};

bool cuda_toolkit_available();

struct Snippet {
  Annotations source;
  AnalysisResult result;
  std::string path;

  // By name, or by key when the name is ambiguous (template instantiations).
  const Function& function(std::string_view name_or_key) const;
  // Accesses whose range is exactly `r`.
  std::vector<const MemoryAccess*> accesses_at(const Function& f, const Range& r) const;
  // The one access of kind `k` at `r`.
  const MemoryAccess& access(const Function& f, const Range& r, AccessKind k) const;
  std::vector<const Finding*> findings(std::string_view code) const;
  // Error findings from clang, one per line ("line:col: message"), for CHECK messages.
  std::string clang_errors() const;
  std::string dump() const;
};

// Writes nothing to disk except an empty compile_commands.json next to the
// (virtual) snippet file, so no compile database of the machine is picked up.
Snippet parse_snippet(std::string_view annotated, Toolchain toolchain = Toolchain::Cuda,
                      AnalysisOptions options = {});

}  // namespace warplens::testing
