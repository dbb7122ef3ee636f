// How each door names the settings a workflow reads, so that one check
// (workflows/llm_settings.h, workflows/optimize.h) tells the user what to
// change in the words of the door they used: the editor's
// `warplens.llm.endpoint`, the command line's `--llm-endpoint`.
//
// A new door (an MCP server) adds its own function here.
#pragma once

#include <string>

namespace warplens::workflows {

struct SettingNames {
  std::string llm_endpoint;       // "warplens.llm.endpoint"
  std::string llm_model;          // "warplens.llm.model"
  std::string llm_unset_hint;     // after "... is not set": how to go back to the built-in search
  std::string llm_key_help;       // how to give the door WARPLENS_LLM_API_KEY
  std::string no_llm_hint;        // the build has no LLM policy: what to use instead
  std::string no_rewrite_engine;  // the build has no Clang rewrite engine: what to do instead
  std::string nothing_to_verify;  // no main() and no capture: how to say what the program is

  // The language server's settings (docs/configuration.md).
  static SettingNames editor();
  // `warplens optimize`'s options (cli/optimize.h).
  static SettingNames command_line();
};

}  // namespace warplens::workflows
