// What the LLM policy may call while it drafts (agent::PolicyTools): the
// static analysis of a draft (when this build has the Clang front end) and
// an nvcc compile check, in a private scratch directory, never next to the
// user's file. Shared by `warplens optimize --policy llm` and the editor's
// optimize job.
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>

#include "agent/policy.h"
#include "analysis/analyzer.h"

namespace warplens::workflows {

struct PolicyToolsOptions {
  std::filesystem::path file;  // the original (absolute): its name and directory (for its headers)
  AnalysisOptions analysis;    // how drafts are analysed (include paths, arch, thresholds)
  std::vector<std::string> include_dirs;  // extra -I for the compile check
  std::string arch = "native";  // nvcc -arch for the compile check
  std::string nvcc;             // empty: found on PATH / CUDA_PATH
  double compile_timeout_s = 180;
};

agent::PolicyTools make_policy_tools(const PolicyToolsOptions& options, std::stop_token stop);

}  // namespace warplens::workflows
