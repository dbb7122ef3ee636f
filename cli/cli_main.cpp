// `warplens [global options] [command] [args]`: global options, the
// subcommand table, and dispatch. Without a command, or when the first
// argument is an option, `serve` runs (editors start `warplens` bare).
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "analysis/analyzer.h"
#include "cli/cli.h"
#include "cli/logging.h"
#include "cli/options.h"
#include "cli/optimize.h"
#include "cli/profile.h"
#include "cli/verify.h"

namespace warplens::cli {

namespace {

// Subcommands written as classic `int f(int argc, char** argv)` entry points
// (argv[0] is the subcommand's name) adapt to the table through this.
template <const char* Name, int (*Entry)(int, char**)>
int run_argv_style(const std::vector<std::string>& args, const CliEnvironment& env) {
  std::vector<std::string> owned;
  owned.reserve(args.size() + 1);
  owned.push_back(Name);
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  return Entry(static_cast<int>(owned.size()), argv.data());
}

constexpr char kProfile[] = "profile";
constexpr char kVerify[] = "verify";
constexpr char kCapture[] = "capture";
constexpr char kOptimize[] = "optimize";

// One line per subcommand. `profile`, `verify` and `optimize` are added here.
const Subcommand kSubcommands[] = {
    {"serve", "run the language server on stdio, or on --listen 127.0.0.1:PORT (the default command)", run_serve},
    {"check", "analyse CUDA files and print diagnostics like a compiler", run_check},
    {"report", "print the kernel model of CUDA files as JSON", run_report},
    {"compile-db", "write compile_commands.json for clangd with nvcc's flags translated as warplens parses them", run_compile_db},
    {"mcp", "run the Model Context Protocol server on stdio, for coding agents (docs/mcp.md)", run_mcp},
    {"profile", "run a program (or a single .cu file) under the CUPTI profiler", run_argv_style<kProfile, run_profile_command>},
    {"capture", "record a kernel's launches from a program, for verify", run_argv_style<kCapture, run_capture_command>},
    {"verify", "check a candidate kernel on captured launches, time it, give its reward level", run_argv_style<kVerify, run_verify_command>},
    {"optimize", "propose rewrites of a kernel, verify each on this GPU, report the verified winners", run_argv_style<kOptimize, run_optimize_command>},
};

void print_help(const std::string& program) {
  std::printf(
      "usage: %s [global options] [command] [arguments]\n\n"
      "warplens: a language server that makes CUDA kernels fast from inside the editor.\n\n"
      "commands:\n",
      program.c_str());
  for (const auto& s : kSubcommands) std::printf("  %-10s %s\n", s.name, s.summary);
  std::printf(
      "\n`%s COMMAND --help` describes a command's arguments.\n\n"
      "global options:\n"
      "  --version          print the version and whether the Clang front end is built in\n"
      "  --help             this help\n"
      "  --log-file FILE    write the log to FILE instead of stderr (never to stdout)\n"
      "  --log-level LEVEL  trace, debug, info, warn, error or off\n"
      "                     (default: info for serve, warn for the other commands)\n",
      program.c_str());
}

}  // namespace

int cli_main(int argc, char** argv, const std::string& version) {
  CliEnvironment env;
  env.version = version;
  env.program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "warplens";
  std::string log_file;
  std::vector<std::string> rest;
  try {
    // Global options may appear anywhere before `--`; everything else goes
    // to the command, in order.
    auto [options, after] = split_at_double_dash(std::vector<std::string>(argv + 1, argv + argc));
    const bool ended = options.size() != static_cast<std::size_t>(std::max(argc - 1, 0));
    OptionParser globals;
    globals.pass_through();
    globals.value("--log-file", log_file);
    globals.value("--log-level", [&](const std::string& v) {
      if (!valid_log_level(v)) throw UsageError("invalid --log-level `" + v + "`");
      env.log_level = v;
    });
    globals.parse(options);
    rest = globals.rest();
    if (ended) {
      rest.push_back("--");
      rest.insert(rest.end(), after.begin(), after.end());
    }

    if (!rest.empty() && rest[0] == "--version") {
      std::printf("warplens %s (front end: %s)\n", version.c_str(),
                  frontend_available() ? "clang 19" : "none, built with WARPLENS_WITH_CLANG=OFF");
      return kExitOk;
    }
    if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help")) {
      print_help(env.program);
      return kExitOk;
    }

    const Subcommand* command = &kSubcommands[0];  // serve
    if (!rest.empty() && rest[0][0] != '-') {
      command = nullptr;
      for (const auto& s : kSubcommands)
        if (rest[0] == s.name) command = &s;
      if (!command) throw UsageError("unknown command `" + rest[0] + "`");
      rest.erase(rest.begin());
    }

    std::string level = env.log_level.empty() ? (command->run == run_serve ? "info" : "warn") : env.log_level;
    if (std::string error = setup_logging(level, log_file); !error.empty()) throw UsageError(error);
    return command->run(rest, env);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "warplens: error: %s\n(run `%s --help` for usage)\n", e.what(), env.program.c_str());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warplens: internal error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace warplens::cli
