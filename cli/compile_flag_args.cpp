#include "cli/compile_flag_args.h"

#include <filesystem>
#include <regex>

#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "cli/options.h"

namespace fs = std::filesystem;

namespace warplens::cli {

const char* const kCompileFlagsHelp =
    "  -I DIR, -IDIR   add an include directory (relative: to the current directory)\n"
    "  -D NAME[=V], -DNAME[=V], -U NAME, -UNAME\n"
    "                  define or undefine a macro\n"
    "  -std=c++NN, --std c++NN\n"
    "                  the C++ standard (default: the compile command's, else c++17)\n"
    "  --cuda-path DIR CUDA toolkit to parse against and compile with (default: CUDA_PATH,\n"
    "                  nvcc on PATH, /usr/local/cuda)\n"
    "                  These are appended to the file's compile command: compile_commands.json's\n"
    "                  entry, else the nearest compile_flags.txt, else defaults.\n";

namespace {

std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

void check_macro(const std::string& flag, const std::string& value, bool allow_value) {
  static const std::regex name(R"(^[A-Za-z_][A-Za-z0-9_]*(\(.*\))?$)");
  std::string macro = allow_value ? value.substr(0, value.find('=')) : value;
  if (!std::regex_match(macro, name))
    throw UsageError(flag + " expects a macro name" + (allow_value ? " NAME or NAME=VALUE" : "") + ", got `" +
                     value + "`");
}

}  // namespace

void add_compile_flags(OptionParser& parser, CompileFlagArgs& out) {
  parser.value("-I", [&out](const std::string& dir) {
    if (dir.empty()) throw UsageError("-I expects a directory, got an empty one");
    if (dir[0] == '=') throw UsageError("-I takes the directory as -I DIR or -IDIR, got `-I" + dir + "`");
    std::string abs = absolute_normal(dir);
    std::error_code ec;
    if (!fs::is_directory(abs, ec)) spdlog::warn("-I {}: not a directory (clang ignores it)", dir);
    out.include_dirs.push_back(abs);
  });
  parser.value("-D", [&out](const std::string& v) {
    check_macro("-D", v, true);
    out.defines.push_back(v);
    out.macro_flags.push_back("-D" + v);
  });
  parser.value("-U", [&out](const std::string& v) {
    check_macro("-U", v, false);
    out.macro_flags.push_back("-U" + v);
  });
  // -std=c++17 (clang's spelling), --std c++17, --std=c++17.
  parser.single_dash_long("std");
  parser.value("--std", [&out](const std::string& standard) {
    static const std::regex cxx(R"(^(c|gnu)\+\+[0-9][0-9a-z]$)");
    if (!std::regex_match(standard, cxx))
      throw UsageError("-std expects a C++ standard such as c++17 or c++20, got `" + standard + "`");
    out.language_standard = standard;
  });
  parser.value("--cuda-path", [&out](const std::string& dir) {
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec))
      throw UsageError("--cuda-path expects a CUDA toolkit directory, got `" + dir + "`");
    out.cuda_path = absolute_normal(dir);
  });
}

std::vector<std::string> CompileFlagArgs::clang_args() const {
  std::vector<std::string> args;
  for (const auto& d : include_dirs) args.push_back("-I" + d);
  args.insert(args.end(), macro_flags.begin(), macro_flags.end());
  if (!language_standard.empty()) args.push_back("-std=" + language_standard);
  return args;
}

void CompileFlagArgs::apply(AnalysisOptions& options) const {
  for (auto& a : clang_args()) options.extra_args.push_back(std::move(a));
  if (!cuda_path.empty()) options.cuda_path = cuda_path;
}

}  // namespace warplens::cli
