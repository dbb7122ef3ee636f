#include "workflows/setting_names.h"

namespace warplens::workflows {

SettingNames SettingNames::editor() {
  SettingNames n;
  n.llm_endpoint = "warplens.llm.endpoint";
  n.llm_model = "warplens.llm.model";
  n.llm_unset_hint = " (clear warplens.llm.endpoint and warplens.llm.model to use the built-in rewrite search)";
  n.llm_key_help =
      "set WARPLENS_LLM_API_KEY in the language server's environment (VS Code: the command \"warplens: Set LLM API "
      "key\"; Neovim: the `cmd_env` option of require('warplens').setup, or the environment nvim starts from)";
  n.no_llm_hint = "clear warplens.llm.endpoint and warplens.llm.model to use the built-in rewrite search";
  n.no_rewrite_engine =
      "set warplens.llm.endpoint and warplens.llm.model to use an LLM instead; nothing is offered";
  n.nothing_to_verify =
      "Set warplens.profileCommand to the shell command that runs your program (and warplens.buildCommand to "
      "rebuild it) — VS Code: \"warplens.profileCommand\" in settings.json; Neovim: settings = { profileCommand = "
      "'...' } in require('warplens').setup — so its real launches of the kernel are captured and every rewrite is "
      "checked against them";
  return n;
}

SettingNames SettingNames::command_line() {
  SettingNames n;
  n.llm_endpoint = "--llm-endpoint (or WARPLENS_LLM_BASE_URL)";
  n.llm_model = "--llm-model (or WARPLENS_LLM_MODEL)";
  n.llm_key_help = "put the key in the environment variable WARPLENS_LLM_API_KEY (never on the command line)";
  n.no_llm_hint = "use --policy builtin";
  n.no_rewrite_engine =
      "generate candidates elsewhere with --candidates-only and verify them here with --verify-dir";
  n.nothing_to_verify =
      "Give --capture DIR (launches recorded with `warplens capture`) so every rewrite is checked against them";
  return n;
}

}  // namespace warplens::workflows
