// User settings, from initializationOptions and workspace/didChangeConfiguration
// (a `warplens` object), and their mapping onto the engine's AnalysisOptions.
// Every key, its type, range and default are in server/settings_schema.json
// (settings_schema.h), which the editor clients are generated from;
// docs/configuration.md explains them.
//
// The LLM API key is deliberately not a setting: it is read only from the
// WARPLENS_LLM_API_KEY environment variable and never logged.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "workflows/llm_settings.h"

namespace warplens::server {

using workflows::LlmSettings;

struct Settings {
  std::string arch = "sm_90";
  std::string cuda_path;
  std::string compile_commands_dir;
  double uncoalesced_threshold = 1.25;
  int bank_conflict_threshold = 2;
  double occupancy_threshold = 0.5;
  std::optional<BlockShape> default_block;
  std::map<std::string, BlockShape> kernel_blocks;
  std::optional<int> debounce_ms;  // unset: the server's --debounce-ms
  std::string profile_command;     // how to run the user's program under the profiler
  std::string build_command;       // how to rebuild it
  // "auto" | "on" | "off": publish Clang's own diagnostics (source "clang").
  // The server treats "auto" as "on"; editors resolve it (off while clangd or
  // cpptools serves the file) before sending.
  std::string clang_diagnostics = "auto";
  LlmSettings llm;
  // Globs of programs a compile command (-ccbin) or cudaPath may run, on top
  // of the toolkit and PATH (analysis/driver_policy.h). A machine-level
  // setting: editors must not take it from an untrusted workspace.
  std::vector<std::string> allowed_drivers;
  // Clang flags appended to every file's command line (compile database
  // entry, compile_flags.txt or defaults), as `warplens check -I ... -D ...`
  // appends its own: AnalysisOptions::extra_args. Relative paths are
  // relative to the workspace folder.
  std::vector<std::string> fallback_flags;

  bool clang_diagnostics_shown() const { return clang_diagnostics != "off"; }
};

// Applies the settings object `update` on top of `base`. Accepts either
// {"warplens": {...}} or the inner object itself. Keys left out keep their
// value; null resets a key to its default. A value of the wrong type or out
// of range (per the schema) leaves that setting unchanged and adds a message
// to `problems` (never echoing a secret).
Settings apply_settings(const Settings& base, const nlohmann::json& update, std::vector<std::string>& problems);

// Server settings of the schema that apply_settings has no code for, and
// the reverse; empty when the two agree (settings_test).
std::vector<std::string> settings_without_setter();

// The settings as JSON (for logs and `warplens/status`-like views).
nlohmann::json settings_to_json(const Settings& s);

// `workspace_folder` resolves relative paths of fallbackFlags (-I inc);
// empty: they stay as written.
AnalysisOptions to_analysis_options(const Settings& s, const std::string& workspace_folder = "");
// True when the two differ in a setting that reaches AnalysisOptions.
bool analysis_settings_differ(const Settings& a, const Settings& b);

// "256", [16, 16], [8, 8, 4] or {"x": 16, "y": 16}; nullopt (with `error`) otherwise.
std::optional<BlockShape> parse_block_shape(const nlohmann::json& j, std::string& error);

}  // namespace warplens::server
