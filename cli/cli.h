// The `warplens` command line: global flags, then a subcommand. Each
// subcommand lives in its own cli/<name>.cpp; the table in cli_main.cpp
// lists them, one line each, so `profile`, `verify` and `optimize` plug in
// the same way.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace warplens::cli {

// Exit codes shared by the subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // e.g. the LSP client left without `shutdown`
inline constexpr int kExitUsage = 2;    // bad arguments, unreadable files, no front end

struct CliEnvironment {
  std::string version;      // "0.1.0"
  std::string program;      // argv[0]
  std::string log_level;    // as given with --log-level, or empty
};

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args, const CliEnvironment& env);
};

// A usage error: printed with the subcommand's help hint, exit code 2.
// The options themselves are read with CLI11 through cli/options.h.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int cli_main(int argc, char** argv, const std::string& version);

// docs/diagnostics, for the documentation links of diagnostics (serve, mcp):
// WARPLENS_DOCS_DIR, next to an installed binary, or in the source tree of a
// build-tree binary. Empty when none is found.
std::string find_docs_dir();

// The subcommands.
int run_serve(const std::vector<std::string>& args, const CliEnvironment& env);
int run_check(const std::vector<std::string>& args, const CliEnvironment& env);
int run_report(const std::vector<std::string>& args, const CliEnvironment& env);
int run_mcp(const std::vector<std::string>& args, const CliEnvironment& env);
int run_compile_db(const std::vector<std::string>& args, const CliEnvironment& env);

}  // namespace warplens::cli
