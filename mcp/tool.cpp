#include "mcp/tool.h"

namespace warplens::mcp {

ToolResult tool_error_result(const std::string& kind, const std::string& message) {
  ToolResult r;
  r.meta[kErrorMetaKey] = {{"kind", kind}, {"message", message}};
  r.text = "error (" + kind + "): " + message;
  r.is_error = true;
  return r;
}

json Tool::descriptor() const {
  json j = {{"name", name}, {"title", title}, {"description", description}, {"inputSchema", input_schema}};
  if (!output_schema.is_null()) j["outputSchema"] = output_schema;
  if (!annotations.empty()) j["annotations"] = annotations;
  return j;
}

}  // namespace warplens::mcp
