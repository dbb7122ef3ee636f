#include "protocol/lsp_diagnostics.h"

namespace warplens::protocol {

void to_json(json& j, const CodeDescription& v) { j = json{{"href", v.href}}; }
void from_json(const json& j, CodeDescription& v) { j.at("href").get_to(v.href); }

void to_json(json& j, const DiagnosticRelatedInformation& v) {
  j = json{{"location", v.location}, {"message", v.message}};
}
void from_json(const json& j, DiagnosticRelatedInformation& v) {
  j.at("location").get_to(v.location);
  j.at("message").get_to(v.message);
}

void to_json(json& j, const Diagnostic& v) {
  j = json{{"range", v.range}, {"message", v.message}};
  if (v.severity) j["severity"] = static_cast<int>(*v.severity);
  write_optional(j, "code", v.code);
  write_optional(j, "codeDescription", v.codeDescription);
  write_optional(j, "source", v.source);
  if (!v.tags.empty()) {
    json tags = json::array();
    for (DiagnosticTag t : v.tags) tags.push_back(static_cast<int>(t));
    j["tags"] = std::move(tags);
  }
  write_list(j, "relatedInformation", v.relatedInformation);
  write_optional(j, "data", v.data);
}

void from_json(const json& j, Diagnostic& v) {
  j.at("range").get_to(v.range);
  j.at("message").get_to(v.message);
  if (auto it = j.find("severity"); it != j.end() && !it->is_null())
    v.severity = static_cast<DiagnosticSeverity>(it->get<int>());
  if (auto it = j.find("code"); it != j.end() && !it->is_null())
    v.code = it->is_string() ? it->get<std::string>() : it->dump();
  read_optional(j, "codeDescription", v.codeDescription);
  read_optional(j, "source", v.source);
  if (auto it = j.find("tags"); it != j.end() && it->is_array())
    for (const auto& t : *it) v.tags.push_back(static_cast<DiagnosticTag>(t.get<int>()));
  read_list(j, "relatedInformation", v.relatedInformation);
  if (auto it = j.find("data"); it != j.end()) v.data = *it;
}

void to_json(json& j, const PublishDiagnosticsParams& v) {
  j = json{{"uri", v.uri}, {"diagnostics", v.diagnostics}};
  write_optional(j, "version", v.version);
}
void from_json(const json& j, PublishDiagnosticsParams& v) {
  j.at("uri").get_to(v.uri);
  read_optional(j, "version", v.version);
  j.at("diagnostics").get_to(v.diagnostics);
}

}  // namespace warplens::protocol
