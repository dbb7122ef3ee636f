// The LLM policy: a ReAct loop (in the spirit of the CUDA Agent paper)
// against an OpenAI-compatible chat-completions endpoint with tool calling.
//
// One conversation spans the whole optimize job. Each propose() call runs
// turns (one chat request each) until the model proposes a candidate that
// passes the cheap checks, calls finish, or runs out of turns or time. The
// model's propose_edit call stays unanswered until the job has verified the
// candidate; the next propose() answers it with the verdict, so the model
// learns from the verifier exactly as it would from a tool.
//
// Errors the user must fix (wrong key, URL, model, no tool support) are
// thrown as LlmError; the job ends with them as its error. Cancellation
// (the stop token) aborts the request in flight and returns no candidates.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/llm/chat_client.h"
#include "agent/llm/chat_types.h"
#include "agent/llm/llm_config.h"
#include "agent/llm/tool_box.h"
#include "agent/policy.h"

namespace warplens::agent::llm {

class LlmPolicy final : public Policy {
 public:
  // Throws LlmError(Configuration) when the config is unusable.
  explicit LlmPolicy(LlmConfig config);

  std::string name() const override { return "llm"; }
  std::vector<Candidate> propose(const PolicyContext& context, int max, std::stop_token stop) override;

  // The conversation so far (system prompt, brief, replies, tool results).
  const std::vector<ChatMessage>& transcript() const { return messages_; }
  int turns_used() const { return turns_; }
  // Why the policy stopped proposing ("the model called finish: ...",
  // "reached the limit of 30 turns"); empty while it is still going.
  const std::string& stopped_because() const { return stopped_because_; }

 private:
  struct Pending {
    ToolCall call;        // the propose_edit call awaiting its verdict
    std::string id;       // the candidate's id as we gave it
    std::string source;   // to find it again should the job renumber it
  };

  void open_conversation(const PolicyContext& context);
  void answer_pending(const PolicyContext& context);
  void stop_proposing(std::string why);

  LlmConfig config_;
  ChatClient client_;
  ToolBox tools_;
  std::vector<ToolDefinition> tool_definitions_;
  std::vector<ChatMessage> messages_;
  std::vector<Pending> pending_;
  std::vector<std::string> shown_history_;  // candidate ids the model has seen verdicts for
  int turns_ = 0;
  bool finished_ = false;
  std::string stopped_because_;
};

}  // namespace warplens::agent::llm
