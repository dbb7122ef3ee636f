// One MCP tool as data: its name, its JSON schemas, and the function that
// runs it. The tools themselves (tools_*.cpp) are thin: they resolve their
// arguments inside the workspace, call the same workflow functions the
// language server and the command line call, and turn the outcome into a
// ToolResult.
//
// Two kinds of failure, as MCP 2025-06-18 ("Tools", "Error Handling")
// separates them: a request the protocol cannot serve (unknown tool,
// arguments that break the input schema) is a JSON-RPC error, answered by
// the session; anything the tool itself meets (no GPU, no capture, the
// build failed, a path outside the root) is a result with `isError: true`
// that the model reads and can act on. Tools report the second kind by
// throwing ToolError.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

namespace warplens::mcp {

using json = nlohmann::json;

// A successful result carries structuredContent that matches the tool's
// outputSchema. An error result carries none: clients validate any
// structuredContent they get against the outputSchema, error or not (the
// official TypeScript SDK does), and an error lacks the success shape's
// required fields. Its kind goes in the text and in `_meta`.
struct ToolResult {
  json structured = json::object();  // structuredContent; sent only when !is_error
  std::string text;                  // the text content block (what a client without structured output shows)
  bool is_error = false;
  json meta = json::object();        // the result's `_meta`; sent when not empty
};

// A failure the agent should read: `kind` is a stable word ("outside-root",
// "no-gpu", "no-capture", "build-failed", "not-found", "refused",
// "failed"), the message says what to do about it.
class ToolError : public std::runtime_error {
 public:
  ToolError(std::string kind, const std::string& message) : std::runtime_error(message), kind(std::move(kind)) {}
  std::string kind;
};

// The `_meta` key of a tool error's details (a prefixed key, as MCP
// 2025-06-18 asks of implementation-defined `_meta` entries).
inline constexpr const char* kErrorMetaKey = "warplens/error";

// isError with the text "error (KIND): MESSAGE" and
// `_meta: {"warplens/error": {"kind": KIND, "message": MESSAGE}}`; no
// structuredContent.
ToolResult tool_error_result(const std::string& kind, const std::string& message);

// What a running tool may do besides computing: report progress (sent as
// notifications/progress when the caller gave a progressToken; `total`
// when known) and notice cancellation (notifications/cancelled, or the
// client leaving).
class ToolContext {
 public:
  using ProgressSink = std::function<void(double progress, std::optional<double> total, const std::string& message)>;
  ToolContext(std::stop_token stop, ProgressSink progress) : stop_(std::move(stop)), progress_(std::move(progress)) {}

  std::stop_token stop() const { return stop_; }
  bool cancelled() const { return stop_.stop_requested(); }
  void progress(double progress, std::optional<double> total, const std::string& message) const {
    if (progress_) progress_(progress, total, message);
  }

 private:
  std::stop_token stop_;
  ProgressSink progress_;
};

struct Tool {
  std::string name;         // "analyze"
  std::string title;        // "Analyze a CUDA file"
  std::string description;  // for the model: what it does, when to use it, what it costs
  json input_schema;        // JSON Schema of `arguments` (type object)
  json output_schema;       // JSON Schema of structuredContent (type object)
  json annotations = json::object();  // readOnlyHint, destructiveHint, idempotentHint, openWorldHint
  std::function<ToolResult(const json& arguments, const ToolContext& context)> run;

  // The tools/list entry.
  json descriptor() const;
};

}  // namespace warplens::mcp
