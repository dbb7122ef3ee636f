#include "protocol/lsp_features.h"

namespace warplens::protocol {

RequestId read_request_id(const json& j) { return j.get<RequestId>(); }

void to_json(json& j, const Hover& v) {
  j = json{{"contents", v.contents}};
  write_optional(j, "range", v.range);
}
void from_json(const json& j, Hover& v) {
  j.at("contents").get_to(v.contents);
  read_optional(j, "range", v.range);
}

void to_json(json& j, const CodeActionContext& v) {
  j = json{{"diagnostics", v.diagnostics}};
  write_optional(j, "only", v.only);
  if (v.triggerKind) j["triggerKind"] = static_cast<int>(*v.triggerKind);
}
void from_json(const json& j, CodeActionContext& v) {
  j.at("diagnostics").get_to(v.diagnostics);
  read_optional(j, "only", v.only);
  if (auto it = j.find("triggerKind"); it != j.end() && !it->is_null())
    v.triggerKind = static_cast<CodeActionTriggerKind>(it->get<int>());
}

void to_json(json& j, const CodeActionParams& v) {
  j = json{{"textDocument", v.textDocument}, {"range", v.range}, {"context", v.context}};
}
void from_json(const json& j, CodeActionParams& v) {
  j.at("textDocument").get_to(v.textDocument);
  j.at("range").get_to(v.range);
  j.at("context").get_to(v.context);
}

void to_json(json& j, const CodeAction& v) {
  j = json{{"title", v.title}};
  write_optional(j, "kind", v.kind);
  write_list(j, "diagnostics", v.diagnostics);
  write_optional(j, "isPreferred", v.isPreferred);
  if (v.disabled) j["disabled"] = json{{"reason", v.disabled->reason}};
  write_optional(j, "edit", v.edit);
  write_optional(j, "command", v.command);
  write_optional(j, "data", v.data);
}
void from_json(const json& j, CodeAction& v) {
  j.at("title").get_to(v.title);
  read_optional(j, "kind", v.kind);
  read_list(j, "diagnostics", v.diagnostics);
  read_optional(j, "isPreferred", v.isPreferred);
  if (auto it = j.find("disabled"); it != j.end() && it->is_object())
    v.disabled = CodeActionDisabled{it->value("reason", std::string())};
  read_optional(j, "edit", v.edit);
  read_optional(j, "command", v.command);
  if (auto it = j.find("data"); it != j.end()) v.data = *it;
}

void to_json(json& j, const CodeLensParams& v) { j = json{{"textDocument", v.textDocument}}; }
void from_json(const json& j, CodeLensParams& v) { j.at("textDocument").get_to(v.textDocument); }

void to_json(json& j, const CodeLens& v) {
  j = json{{"range", v.range}};
  write_optional(j, "command", v.command);
  write_optional(j, "data", v.data);
}
void from_json(const json& j, CodeLens& v) {
  j.at("range").get_to(v.range);
  read_optional(j, "command", v.command);
  if (auto it = j.find("data"); it != j.end()) v.data = *it;
}

void to_json(json& j, const ExecuteCommandParams& v) {
  j = json{{"command", v.command}, {"arguments", v.arguments}};
  if (v.workDoneToken) j["workDoneToken"] = *v.workDoneToken;
}
void from_json(const json& j, ExecuteCommandParams& v) {
  j.at("command").get_to(v.command);
  if (auto it = j.find("arguments"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) throw json::type_error::create(302, "arguments must be an array", &j);
    v.arguments = *it;
  }
  if (auto it = j.find("workDoneToken"); it != j.end() && !it->is_null())
    v.workDoneToken = read_request_id(*it);
}

}  // namespace warplens::protocol
