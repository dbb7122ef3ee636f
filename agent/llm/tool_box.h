// The tools the model may call, and what each call does. Every result is
// text for the model; argument mistakes are answered as errors the model can
// correct (they cost a turn, never an exception).
//
//   read_file        a file under the kernel's directory (KernelDirectory)
//   list_files       what is in that directory
//   static_analysis  warplens's findings for the original or a draft source
//   compile          nvcc check of a draft source
//   propose_edit     a rewrite: checked (applies, kernel and its signature
//                    kept, launches unchanged unless declared, compiles),
//                    then returned as a Candidate; its tool result is the
//                    verifier's verdict, sent in the next round
//   finish           nothing more to try
//
// Verification and timing are not tools: the optimize job verifies every
// candidate with its own verifier, so the model cannot skip or fake them.
#pragma once

#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/llm/chat_types.h"
#include "agent/llm/llm_config.h"
#include "agent/policy.h"

namespace warplens::agent::llm {

struct ToolOutcome {
  std::string reply;                    // the tool message for the model
  std::optional<Candidate> candidate;   // propose_edit accepted it
  bool finish = false;                  // the model called finish
  std::string finish_reason;
};

// The JSON schemas of the tools above, in the order the model sees them.
std::vector<ToolDefinition> tool_definitions();

class ToolBox {
 public:
  explicit ToolBox(const LlmConfig& config);

  // Runs one call against the current round's context.
  ToolOutcome call(const ToolCall& call, const PolicyContext& context, int turn);

  // The source of a candidate this tool box accepted, by id; nullptr if none.
  const std::string* proposed_source(const std::string& id) const;
  // The id of an earlier accepted candidate with exactly this source, or "".
  std::string duplicate_of(const std::string& source) const;

 private:
  ToolOutcome read_file(const nlohmann::json& args, const PolicyContext& context);
  ToolOutcome list_files(const nlohmann::json& args, const PolicyContext& context);
  ToolOutcome static_analysis(const nlohmann::json& args, const PolicyContext& context);
  ToolOutcome compile(const nlohmann::json& args, const PolicyContext& context);
  ToolOutcome propose_edit(const nlohmann::json& args, const PolicyContext& context, int turn);

  // A draft given as {"source": ...} or {"candidate": id}; the original when
  // neither. Empty with `error` set when the reference is bad.
  std::optional<std::string> draft_source(const nlohmann::json& args, const PolicyContext& context,
                                          std::string& error) const;
  const AnalysisResult* original_analysis(const PolicyContext& context);

  LlmConfig config_;  // a copy: the tool box may outlive the caller's config
  std::map<std::string, std::string> proposed_;  // id -> source, in id order
  int next_number_ = 1;
  std::optional<AnalysisResult> original_analysis_;
  bool original_analysed_ = false;
};

}  // namespace warplens::agent::llm
