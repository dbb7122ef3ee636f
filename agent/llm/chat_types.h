// The OpenAI chat-completions vocabulary, as plain structs: messages, tool
// calls, tool definitions, a completion. chat_wire.h turns them into the JSON
// the endpoint speaks; the ReAct loop works on these.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace warplens::agent::llm {

struct ToolCall {
  std::string id;         // "call_abc"; answered by a tool message with the same id
  std::string name;       // "read_file"
  std::string arguments;  // JSON text as the model wrote it (may be malformed)
};

struct ChatMessage {
  std::string role;                    // "system", "user", "assistant", "tool"
  std::optional<std::string> content;  // assistant messages that only call tools have none
  std::vector<ToolCall> tool_calls;    // assistant only
  std::string tool_call_id;            // tool only: the call this answers
  std::string name;                    // tool only: the tool's name

  static ChatMessage system(std::string text) { return {"system", std::move(text), {}, {}, {}}; }
  static ChatMessage user(std::string text) { return {"user", std::move(text), {}, {}, {}}; }
  static ChatMessage tool_result(const ToolCall& call, std::string text) {
    return {"tool", std::move(text), {}, call.id, call.name};
  }
};

struct ToolDefinition {
  std::string name;
  std::string description;
  nlohmann::json parameters;  // JSON Schema of the arguments object
};

struct ChatCompletion {
  ChatMessage message;          // the assistant's reply
  std::string finish_reason;    // "stop", "tool_calls", "length", ...
  std::string reasoning;        // reasoning_content some servers return; kept for logs, never sent back
  int prompt_tokens = 0;
  int completion_tokens = 0;
};

}  // namespace warplens::agent::llm
