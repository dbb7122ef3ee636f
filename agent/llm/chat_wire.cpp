#include "agent/llm/chat_wire.h"

#include "agent/llm/llm_error.h"
#include "agent/llm/text_clip.h"

namespace warplens::agent::llm {

using nlohmann::json;

namespace {

json encode_message(const ChatMessage& m) {
  json j{{"role", m.role}};
  j["content"] = m.content ? json(*m.content) : json(nullptr);
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& c : m.tool_calls)
      calls.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    j["tool_calls"] = std::move(calls);
  }
  if (m.role == "tool") j["tool_call_id"] = m.tool_call_id;
  return j;
}

// Content is a string, null, or (some servers) a list of {"type":"text","text":...} parts.
std::optional<std::string> decode_content(const json& c) {
  if (c.is_string()) return c.get<std::string>();
  if (c.is_array()) {
    std::string text;
    for (const auto& part : c)
      if (part.is_object() && part.contains("text") && part["text"].is_string()) text += part["text"].get<std::string>();
      else if (part.is_string()) text += part.get<std::string>();
    return text;
  }
  return std::nullopt;
}

[[noreturn]] void invalid(const std::string& what, std::string_view body) {
  throw LlmError(LlmErrorKind::InvalidResponse,
                 "the endpoint's answer is not a chat completion (" + what + "); it began: " + clip(body, 200));
}

}  // namespace

std::string encode_chat_request(const LlmConfig& config, const std::vector<ChatMessage>& messages,
                                const std::vector<ToolDefinition>& tools) {
  json j{{"model", config.model}, {"stream", false}};
  json ms = json::array();
  for (const auto& m : messages) ms.push_back(encode_message(m));
  j["messages"] = std::move(ms);
  if (!tools.empty()) {
    json ts = json::array();
    for (const auto& t : tools)
      ts.push_back({{"type", "function"},
                    {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    j["tools"] = std::move(ts);
    j["tool_choice"] = "auto";
  }
  if (config.temperature) j["temperature"] = *config.temperature;
  if (config.max_tokens) j["max_tokens"] = *config.max_tokens;
  // Invalid UTF-8 in the user's file must not make the request unsendable.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ChatCompletion decode_chat_completion(std::string_view body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) invalid("not valid JSON", body);
  if (!j.is_object()) invalid("not a JSON object", body);
  if (j.contains("error") && !j["error"].is_null()) invalid("it reports an error: " + error_message_from_body(body), body);
  if (!j.contains("choices") || !j["choices"].is_array()) invalid("no \"choices\" array", body);
  if (j["choices"].empty()) invalid("\"choices\" is empty", body);
  const json& choice = j["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    invalid("the first choice has no \"message\" object", body);
  const json& msg = choice["message"];

  ChatCompletion out;
  out.message.role = "assistant";
  if (msg.contains("content")) out.message.content = decode_content(msg["content"]);
  for (const char* key : {"reasoning_content", "reasoning"})
    if (msg.contains(key) && msg[key].is_string()) out.reasoning = msg[key].get<std::string>();
  if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
    int n = 0;
    for (const json& call : msg["tool_calls"]) {
      ++n;
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object())
        invalid("a tool call has no \"function\" object", body);
      const json& fn = call["function"];
      ToolCall tc;
      tc.id = call.contains("id") && call["id"].is_string() && !call["id"].get<std::string>().empty()
                  ? call["id"].get<std::string>()
                  : "call_" + std::to_string(n);  // some servers omit ids; we still answer each call
      tc.name = fn.contains("name") && fn["name"].is_string() ? fn["name"].get<std::string>() : "";
      if (fn.contains("arguments")) {
        const json& a = fn["arguments"];
        tc.arguments = a.is_string() ? a.get<std::string>() : a.dump();
      }
      out.message.tool_calls.push_back(std::move(tc));
    }
  }
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    out.finish_reason = choice["finish_reason"].get<std::string>();
  if (j.contains("usage") && j["usage"].is_object()) {
    const json& u = j["usage"];
    if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer()) out.prompt_tokens = u["prompt_tokens"];
    if (u.contains("completion_tokens") && u["completion_tokens"].is_number_integer())
      out.completion_tokens = u["completion_tokens"];
  }
  return out;
}

std::string error_message_from_body(std::string_view body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (j.contains("error")) {
      const json& e = j["error"];
      if (e.is_string()) return e.get<std::string>();
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    }
    if (j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
    if (j.contains("detail")) return j["detail"].is_string() ? j["detail"].get<std::string>() : j["detail"].dump();
  }
  return clip(body, 500);
}

}  // namespace warplens::agent::llm
