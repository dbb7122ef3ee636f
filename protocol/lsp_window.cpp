#include "protocol/lsp_window.h"

namespace warplens::protocol {

void to_json(json& j, const ShowMessageParams& v) {
  j = json{{"type", static_cast<int>(v.type)}, {"message", v.message}};
}
void from_json(const json& j, ShowMessageParams& v) {
  v.type = static_cast<MessageType>(j.at("type").get<int>());
  j.at("message").get_to(v.message);
}

void to_json(json& j, const WorkDoneProgressCreateParams& v) { j = json{{"token", v.token}}; }
void from_json(const json& j, WorkDoneProgressCreateParams& v) { v.token = read_request_id(j.at("token")); }
void to_json(json& j, const WorkDoneProgressCancelParams& v) { j = json{{"token", v.token}}; }
void from_json(const json& j, WorkDoneProgressCancelParams& v) { v.token = read_request_id(j.at("token")); }

void to_json(json& j, const WorkDoneProgressBegin& v) {
  j = json{{"kind", "begin"}, {"title", v.title}};
  write_optional(j, "cancellable", v.cancellable);
  write_optional(j, "message", v.message);
  write_optional(j, "percentage", v.percentage);
}
void to_json(json& j, const WorkDoneProgressReport& v) {
  j = json{{"kind", "report"}};
  write_optional(j, "cancellable", v.cancellable);
  write_optional(j, "message", v.message);
  write_optional(j, "percentage", v.percentage);
}
void to_json(json& j, const WorkDoneProgressEnd& v) {
  j = json{{"kind", "end"}};
  write_optional(j, "message", v.message);
}

void to_json(json& j, const ProgressParams& v) { j = json{{"token", v.token}, {"value", v.value}}; }
void from_json(const json& j, ProgressParams& v) {
  v.token = read_request_id(j.at("token"));
  v.value = j.at("value");
}

void to_json(json& j, const CancelParams& v) { j = json{{"id", v.id}}; }
void from_json(const json& j, CancelParams& v) { v.id = read_request_id(j.at("id")); }

void to_json(json& j, const ConfigurationItem& v) {
  j = json::object();
  write_optional(j, "scopeUri", v.scopeUri);
  write_optional(j, "section", v.section);
}
void to_json(json& j, const ConfigurationParams& v) { j = json{{"items", v.items}}; }

void from_json(const json& j, DidChangeConfigurationParams& v) {
  v.settings = j.is_object() && j.contains("settings") ? j["settings"] : json();
}
void to_json(json& j, const DidChangeConfigurationParams& v) { j = json{{"settings", v.settings}}; }

}  // namespace warplens::protocol
