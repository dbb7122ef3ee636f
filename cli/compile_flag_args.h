// The compile flags `check`, `report` and `optimize` take for files that no
// compile_commands.json covers (or on top of it): -I DIR, -IDIR, -D NAME[=V],
// -DNAME, -U NAME, -UNAME, -std=c++17, --std c++17, --std=c++17 and
// --cuda-path DIR. They become AnalysisOptions::extra_args (and cuda_path),
// which the front end appends to the file's command line for the
// diagnostics and the rewrites alike, and nvcc gets for resource usage
// (docs/frontend.md, "Flags without a compile database").
#pragma once

#include <string>
#include <vector>

#include "analysis/analyzer.h"

namespace warplens::cli {

struct CompileFlagArgs {
  std::vector<std::string> include_dirs;  // absolute, normalised: relative ones against the current directory
  std::vector<std::string> defines;       // NAME or NAME=VALUE, in order
  // -D and -U as clang flags, in the order given (-DX -UX leaves X undefined).
  std::vector<std::string> macro_flags;
  std::string language_standard;          // "c++17", or empty
  std::string cuda_path;                  // absolute, or empty
  // -I..., then the macros, then -std=...: for AnalysisOptions::extra_args.
  std::vector<std::string> clang_args() const;
  void apply(AnalysisOptions& options) const;
};

class OptionParser;

// Declares the flags on a command's parser (cli/options.h); each one given
// is recorded in `out`, in order. A malformed value is a UsageError.
void add_compile_flags(OptionParser& parser, CompileFlagArgs& out);

// The help lines, shared by the commands' --help.
extern const char* const kCompileFlagsHelp;

}  // namespace warplens::cli
