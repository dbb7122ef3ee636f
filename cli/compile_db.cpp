// `warplens compile-db`: a compile database for clangd (and any Clang-based
// tool) with each CUDA entry's command line replaced by the one warplens
// parses that file with (analysis/parse_plan.h): nvcc's flags translated
// (-gencode, -arch, -rdc, -ccbin, -Xcompiler, --expt-relaxed-constexpr, ...),
// the toolkit found, CUDA 13's missing headers shimmed and nvcc's implicit
// declarations force-included. The user's database is only read, never
// written: the output goes to its own file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/compile_db.h"
#include "analysis/parse_plan.h"
#include "cli/cli.h"
#include "cli/compile_flag_args.h"
#include "cli/options.h"

namespace warplens::cli {

namespace fs = std::filesystem;

namespace {

void print_compile_db_help() {
  std::printf(
      "usage: warplens compile-db [-p DIR] [--out FILE] [--arch sm_XX] [-I DIR] [-D NAME[=V]] [-U NAME]\n"
      "                           [-std=c++NN] [--cuda-path DIR]\n\n"
      "Reads DIR/compile_commands.json (default: searched upward from the current directory, also\n"
      "in build/) and writes a copy for clangd in which every CUDA entry (nvcc's, or a .cu file's)\n"
      "carries the Clang command line warplens parses it with: nvcc flags translated, the CUDA\n"
      "toolkit and warplens's CUDA 13 shims added. Other entries are copied unchanged.\n\n"
      "options:\n"
      "  -p DIR        the build directory (or the compile_commands.json itself)\n"
      "  --out FILE    where to write (default: DIR/warplens/compile_commands.json); never the input.\n"
      "                Point clangd at its directory: --compile-commands-dir=DIR/warplens, or in\n"
      "                .clangd: CompileFlags: {CompilationDatabase: DIR/warplens}\n"
      "  --arch sm_XX  the architecture for entries that name none (default sm_90)\n"
      "%s\n"
      "exit status: 0 when written; 2 on usage errors or an unreadable database.\n",
      kCompileFlagsHelp);
}

bool is_cuda_entry(const CompileCommand& c) {
  std::string ext = fs::path(c.file).extension().string();
  if (ext == ".cu" || ext == ".cuh") return true;
  if (c.arguments.empty()) return false;
  std::string driver = fs::path(c.arguments.front()).filename().string();
  return driver == "nvcc" || driver.rfind("nvcc", 0) == 0;
}

// The parse's command line, made a compile command: clangd picks the
// language, the host/device split and its own resource directory, and
// diagnostic-output flags mean nothing to it.
std::vector<std::string> clangd_arguments(const std::vector<std::string>& parse_args) {
  static const std::set<std::string> dropped = {"-fsyntax-only", "--cuda-device-only", "-ferror-limit=0",
                                                "-fno-caret-diagnostics"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < parse_args.size(); ++i) {
    const std::string& a = parse_args[i];
    if (i == 0) {
      out.push_back("clang++");
      continue;
    }
    if (dropped.count(a)) continue;
    out.push_back(a);
  }
  return out;
}

}  // namespace

int run_compile_db(const std::vector<std::string>& args, const CliEnvironment&) {
  std::string dir_option, out_option;
  AnalysisOptions options;
  CompileFlagArgs flags;
  OptionParser p;
  p.value("--out", out_option);
  p.value("--arch", options.arch);
  p.value("-p,--compile-commands-dir", dir_option);
  add_compile_flags(p, flags);
  if (!p.parse(args)) {
    print_compile_db_help();
    return kExitOk;
  }
  if (!p.positionals().empty())
    throw UsageError("unexpected argument `" + p.positionals().front() +
                     "` (compile-db reads a database, not files: use -p DIR)");
  flags.apply(options);

  std::string json_path = find_compile_commands((fs::current_path() / "warplens-compile-db.cu").string(), dir_option);
  if (json_path.empty()) {
    std::fprintf(stderr, "warplens compile-db: no compile_commands.json %s\n",
                 dir_option.empty() ? "in the current directory, its parents or their build/ directories (use -p DIR)"
                                    : ("at " + dir_option).c_str());
    return kExitUsage;
  }
  CompileDatabaseLoad load = load_compile_database(json_path);
  if (!load.database) {
    std::fprintf(stderr, "warplens compile-db: %s: %s\n", json_path.c_str(), load.error.c_str());
    return kExitUsage;
  }
  for (const auto& w : load.warnings) std::fprintf(stderr, "warplens compile-db: %s: %s\n", json_path.c_str(), w.c_str());

  fs::path out = out_option.empty() ? fs::path(json_path).parent_path() / "warplens" / "compile_commands.json"
                                    : fs::absolute(out_option);
  std::error_code ec;
  if (fs::equivalent(out, json_path, ec)) {
    std::fprintf(stderr, "warplens compile-db: --out %s is the input database; choose another file\n", out.c_str());
    return kExitUsage;
  }

  options.compile_commands_dir = json_path;
  nlohmann::json entries = nlohmann::json::array();
  std::set<std::string> notes;  // toolchain problems, said once
  int translated = 0;
  for (const CompileCommand& c : load.database->commands) {
    nlohmann::json e = {{"directory", c.directory}, {"file", c.file}};
    if (!is_cuda_entry(c)) {
      e["arguments"] = c.arguments;
      entries.push_back(std::move(e));
      continue;
    }
    ToolchainStatus toolchain;
    std::vector<Finding> problems;
    ParsePlan plan = plan_parse(SourceFile{c.file, ""}, options, "", toolchain, problems);
    for (const auto& p : problems) notes.insert(p.message);
    e["arguments"] = clangd_arguments(plan.args);
    entries.push_back(std::move(e));
    ++translated;
  }
  for (const auto& n : notes) std::fprintf(stderr, "warplens compile-db: note: %s\n", n.c_str());

  fs::create_directories(out.parent_path(), ec);
  fs::path tmp = out;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << entries.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "warplens compile-db: cannot write %s\n", tmp.c_str());
      return kExitUsage;
    }
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::fprintf(stderr, "warplens compile-db: cannot write %s: %s\n", out.c_str(), ec.message().c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "warplens compile-db: %s: %d CUDA entr%s translated, %zu copied; clangd: --compile-commands-dir=%s\n",
               out.c_str(), translated, translated == 1 ? "y" : "ies", entries.size() - translated,
               out.parent_path().c_str());
  return kExitOk;
}

}  // namespace warplens::cli
