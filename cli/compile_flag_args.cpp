#include "cli/compile_flag_args.h"

#include <filesystem>
#include <regex>

#include <spdlog/spdlog.h>

#include "cli/cli.h"

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

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

// The value of a flag written `-X value`, `-Xvalue` or (for long names)
// `--name value` / `--name=value`. `taken` is set to the arguments used.
std::string value_of(const std::vector<std::string>& args, std::size_t i, std::size_t prefix, std::size_t& taken) {
  const std::string& a = args[i];
  if (a.size() > prefix) {
    taken = 1;
    return a.substr(prefix);
  }
  if (i + 1 >= args.size()) throw UsageError("option " + a + " needs a value");
  taken = 2;
  return args[i + 1];
}

void check_macro(const std::string& flag, const std::string& value, bool allow_value) {
  static const std::regex name(R"(^[A-Za-z_][A-Za-z0-9_]*(\(.*\))?$)");
  std::string macro = allow_value ? value.substr(0, value.find('=')) : value;
  if (!std::regex_match(macro, name))
    throw UsageError(flag + " expects a macro name" + (allow_value ? " NAME or NAME=VALUE" : "") + ", got `" +
                     value + "`");
}

}  // namespace

std::size_t take_compile_flag(const std::vector<std::string>& args, std::size_t i, CompileFlagArgs& out) {
  if (i >= args.size()) return 0;
  const std::string& a = args[i];
  std::size_t taken = 0;
  if (starts_with(a, "-I") && !starts_with(a, "-I=")) {
    std::string dir = value_of(args, i, 2, taken);
    if (dir.empty()) throw UsageError("-I expects a directory, got an empty one");
    std::string abs = absolute_normal(dir);
    std::error_code ec;
    if (!fs::is_directory(abs, ec)) spdlog::warn("-I {}: not a directory (clang ignores it)", dir);
    out.include_dirs.push_back(abs);
    return taken;
  }
  if (starts_with(a, "-D") || starts_with(a, "-U")) {
    bool define = a[1] == 'D';
    std::string v = value_of(args, i, 2, taken);
    check_macro(define ? "-D" : "-U", v, define);
    if (define) out.defines.push_back(v);
    out.macro_flags.push_back((define ? "-D" : "-U") + v);
    return taken;
  }
  std::string standard;
  if (starts_with(a, "-std=")) {
    standard = a.substr(5);
    taken = 1;
  } else if (a == "--std" || starts_with(a, "--std=")) {
    standard = a == "--std" ? value_of(args, i, a.size(), taken) : a.substr(6);
    if (a != "--std") taken = 1;
  }
  if (taken) {
    static const std::regex cxx(R"(^(c|gnu)\+\+[0-9][0-9a-z]$)");
    if (!std::regex_match(standard, cxx))
      throw UsageError("-std expects a C++ standard such as c++17 or c++20, got `" + standard + "`");
    out.language_standard = standard;
    return taken;
  }
  if (a == "--cuda-path" || starts_with(a, "--cuda-path=")) {
    std::string dir = a == "--cuda-path" ? value_of(args, i, a.size(), taken) : a.substr(12);
    if (a != "--cuda-path") taken = 1;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec))
      throw UsageError("--cuda-path expects a CUDA toolkit directory, got `" + dir + "`");
    out.cuda_path = absolute_normal(dir);
    return taken;
  }
  return 0;
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
