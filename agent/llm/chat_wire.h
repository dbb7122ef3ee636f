// JSON encoding of chat-completion requests and decoding of responses and
// error bodies, tolerant of the ways OpenAI-compatible servers (vLLM, SGLang,
// Ollama, llama.cpp, hosted APIs) differ: content as a string or a list of
// parts, arguments as a string or an object, missing tool-call ids, errors as
// {"error": {...}}, {"object": "error", ...} or {"detail": ...}.
//
// This wire format is the LLM module's own format, which is why nlohmann/json
// appears here (the layering rule keeps JSON out of engine APIs otherwise).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/llm/chat_types.h"
#include "agent/llm/llm_config.h"

namespace warplens::agent::llm {

// The request body: model, messages, tools (tool_choice "auto"), and the
// optional sampling settings of the config.
std::string encode_chat_request(const LlmConfig& config, const std::vector<ChatMessage>& messages,
                                const std::vector<ToolDefinition>& tools);

// Parses a 200 response. Throws LlmError(InvalidResponse) with a clear
// message when it is not JSON or not a chat completion.
ChatCompletion decode_chat_completion(std::string_view body);

// The human-readable message in an error body, or the body itself (clipped)
// when it has none.
std::string error_message_from_body(std::string_view body);

}  // namespace warplens::agent::llm
