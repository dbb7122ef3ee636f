// Which programs a workspace may make warplens run.
//
// A compile_commands.json is part of the repository being edited; so may
// the cudaPath setting be (VS Code workspace settings). Both name programs
// warplens would run when it computes resource usage: `-ccbin ./tools/cc`,
// `<cudaPath>/bin/nvcc`. Like clangd's --query-driver, warplens runs such a
// program only when it is
//   - on PATH (the same file as `<dir>/<name>` for an absolute PATH entry),
//   - in the bin/ directory of the CUDA toolkit the environment names
//     ($CUDA_PATH, $CUDA_HOME, the toolkit of nvcc on PATH, /usr/local/cuda),
//   - or matched by a glob of warplens.allowedDrivers / --allow-driver
//     (`*` within a path component, `**` across them, `?` one character),
//     tried against the absolute path as written and the resolved one.
// docs/configuration.md ("Trust") describes it for users.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace warplens {

struct DriverCheck {
  bool allowed = false;
  std::string resolved;  // the absolute path that would run (symlinks resolved); may be empty
  std::string reason;    // why not, one line; empty when allowed
};

// `program` as a compile command spells it: a path (relative to
// `directory`), a bare name (looked up on PATH), or a directory of
// compilers (nvcc's -ccbin DIR).
DriverCheck check_driver(const std::string& program, const std::string& directory,
                         const std::vector<std::string>& allowed_globs);

bool glob_matches(std::string_view glob, std::string_view path);

// Host-compiler flags that load or run other programs: -B, -fplugin,
// -specs, -wrapper, --plugin, -fpass-plugin, -iplugindir (and their
// `=`/glued spellings).
bool is_program_loading_host_flag(std::string_view flag);

}  // namespace warplens
