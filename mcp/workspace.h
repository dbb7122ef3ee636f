// The workspace an MCP session may touch: one root directory, given at
// start (`warplens mcp --root DIR`, default the current directory), and the
// only commands it may run (the configured build and profile commands).
//
// Every path a tool takes is resolved here: relative to the root, symbolic
// links followed (every existing component, so a link inside the root that
// points outside is outside), `..` collapsed; anything not at or under the
// root is refused with ToolError("outside-root"). An agent can therefore
// read and write only inside the project it was given, whatever it sends.
#pragma once

#include <filesystem>
#include <string>

namespace warplens::mcp {

struct WorkspaceConfig {
  std::filesystem::path root;        // empty: the current directory
  std::string build_command;         // run with /bin/sh -c in the root before profiling or capturing; empty: none
  std::string profile_command;       // the workspace's program, for profile, capture and optimize; empty: none
  std::string capture_dir;           // verify's default capture (relative to the root); empty: .warplens/capture
  std::string compile_commands_dir;  // for the analysis; empty: the front end's own search
};

class Workspace {
 public:
  // Throws std::runtime_error when the root is not a directory.
  explicit Workspace(WorkspaceConfig config);

  const std::filesystem::path& root() const { return root_; }
  const WorkspaceConfig& config() const { return config_; }

  // The canonical path of `given` (absolute, or relative to the root).
  // `argument` names it in the error. Refuses paths outside the root, and
  // (must_exist) paths that do not exist.
  std::filesystem::path resolve(const std::string& given, const std::string& argument, bool must_exist = true) const;

  // `path` relative to the root ("src/k.cu"), for results.
  std::string relative(const std::filesystem::path& path) const;

  // The capture directory verify uses when the call names none.
  std::filesystem::path default_capture_dir() const;

 private:
  WorkspaceConfig config_;
  std::filesystem::path root_;  // canonical
};

// True when `path` (canonical) is `root` or below it.
bool is_within(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace warplens::mcp
