// The `warplens` command line: global flags, then a subcommand. Each
// subcommand lives in its own cli_<name>.cpp; the table in cli_main.cpp
// lists them, one line each, so `profile`, `verify` and `optimize` plug in
// the same way.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads options in any order: `--name value`, `--name=value`, `-p DIR`,
// `-pDIR`; `--` ends the options.
class ArgReader {
 public:
  explicit ArgReader(std::vector<std::string> args) : args_(std::move(args)) {}
  bool done() const { return pos_ >= args_.size(); }
  // The value of `long_name` (or `short_name`) if the next argument is it.
  std::optional<std::string> option(std::string_view long_name, std::string_view short_name = {});
  bool flag(std::string_view long_name, std::string_view short_name = {});
  // The next argument is an option nobody took: an error.
  bool at_unknown_option() const;
  // Lets `take(args, position)` read the next arguments; it returns how
  // many it used (0: none, and false is returned).
  template <class Take>
  bool take(Take&& take) {
    if (done() || options_ended_) return false;
    std::size_t n = take(args_, pos_);
    pos_ += n;
    return n > 0;
  }
  std::string next();  // a positional argument

 private:
  std::vector<std::string> args_;
  std::size_t pos_ = 0;
  bool options_ended_ = false;
};

long long parse_int(const std::string& option, const std::string& value, long long lo, long long hi);

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
