// compile_commands.json: finding it, reading it, choosing the entry for a
// file, and translating that entry's command line (nvcc's or clang's) into
// the flags a Clang 19 device-side parse understands.
//
// Plain C++ (no Clang), so the translation table is unit-tested on its own
// (tests/unit/analysis/core_compile_db_*.cpp) and documented in
// docs/frontend.md. Problems never throw: they come back as findings with
// code `compile-command`, and the caller falls back to defaults.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"

namespace warplens {

// One entry of compile_commands.json, `command` already split into argv.
struct CompileCommand {
  std::string directory;               // absolute working directory
  std::string file;                    // absolute, lexically normalised
  std::vector<std::string> arguments;  // argv, compiler first
};

struct CompileDatabase {
  std::string path;  // the compile_commands.json
  std::vector<CompileCommand> commands;
};

struct CompileDatabaseLoad {
  std::shared_ptr<const CompileDatabase> database;  // null when unusable
  std::string error;                                // why it is unusable
  std::optional<int> error_line;                    // 0-based, for JSON syntax errors
  std::vector<std::string> warnings;                // entries skipped, and why
};

// `dir_option` (a directory or the json file itself) when given; else the
// file's directory and its ancestors, each also in its build/ subdirectory
// (as clangd does). Empty when none exists.
std::string find_compile_commands(const std::string& file, const std::string& dir_option);

// Reads and validates a database. Cached per path while its size and mtime
// are unchanged, so analysing on every keystroke does not re-read it.
CompileDatabaseLoad load_compile_database(const std::string& json_path);
CompileDatabaseLoad parse_compile_database(const std::string& json_text, const std::string& json_path);

// POSIX-shell word splitting, as compile_commands.json's `command` uses it:
// single and double quotes, backslash escapes, whitespace separation.
std::vector<std::string> split_shell_command(const std::string& command);

enum class CompilerDriver { Nvcc, Clang, Gcc, Unknown };

struct TranslatedCommand {
  CompilerDriver driver = CompilerDriver::Unknown;
  std::vector<std::string> args;       // clang flags; no driver name, inputs, outputs, arch
  std::vector<std::string> gpu_archs;  // architectures the command builds for, normalised (sm_90)
  std::string cuda_path;               // a clang command's --cuda-path
  bool sets_language_standard = false; // args contain -std=
  bool relocatable_device_code = false; // -rdc=true / -dc: device-side launches are allowed
  bool host_openmp = false;            // the host compiler gets -fopenmp: <omp.h> is on its path
  std::vector<std::string> dropped;    // flags removed, as written (for logs and the report)
  std::vector<std::string> problems;   // e.g. an options file that cannot be read
};

// Translates one command line. `directory` resolves relative paths (include
// directories, options files); `source_file` is the input to drop.
TranslatedCommand translate_compile_command(const std::vector<std::string>& argv,
                                            const std::string& directory,
                                            const std::string& source_file);

// The command a file is analysed with.
struct CommandForFile {
  std::optional<TranslatedCommand> command;  // nullopt: defaults
  std::string database_path;                 // the json used, if any
  std::string flags_file;                    // the compile_flags.txt used, if any
  std::string description;                   // for ToolchainStatus::compile_command_source
  std::string directory;                     // working directory of the entry
  std::vector<std::string> arguments;        // the entry's argv as written (nvcc's own flags for
                                             // resource usage); empty with defaults
  // For a header: a source file that includes it. The front end parses that
  // file with the header's text mapped in and reports only the header.
  std::string context_file;
  std::vector<Finding> findings;             // `compile-command` problems, located in `file`
};

// Finds the database, picks the entry: the file's own; for a header (.cuh,
// .h, .hpp, ...) the entry of a source that includes it; otherwise the
// nearest compile_flags.txt (compile_flags.h; its search stops at the
// innermost of `workspace_roots` holding the file); otherwise the entry of
// the nearest source file (its flags only, as clangd interpolates);
// otherwise defaults. AnalysisOptions::extra_args (the command line's -I,
// -D, ..., the fallbackFlags setting) are appended by the caller to
// whichever was chosen.
CommandForFile find_command_for_file(const std::string& file, const std::string& dir_option,
                                     const std::vector<std::string>& workspace_roots = {});

}  // namespace warplens
