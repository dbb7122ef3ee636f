#include "protocol/lsp_basic.h"

#include "protocol/lsp_json.h"

namespace warplens::protocol {

void to_json(json& j, const Position& v) { j = json{{"line", v.line}, {"character", v.character}}; }
void from_json(const json& j, Position& v) {
  v.line = read_uinteger(j, "line");
  v.character = read_uinteger(j, "character");
}

void to_json(json& j, const Range& v) { j = json{{"start", v.start}, {"end", v.end}}; }
void from_json(const json& j, Range& v) {
  j.at("start").get_to(v.start);
  j.at("end").get_to(v.end);
}

void to_json(json& j, const Location& v) { j = json{{"uri", v.uri}, {"range", v.range}}; }
void from_json(const json& j, Location& v) {
  j.at("uri").get_to(v.uri);
  j.at("range").get_to(v.range);
}

void to_json(json& j, const TextEdit& v) { j = json{{"range", v.range}, {"newText", v.newText}}; }
void from_json(const json& j, TextEdit& v) {
  j.at("range").get_to(v.range);
  j.at("newText").get_to(v.newText);
}

void to_json(json& j, const TextDocumentIdentifier& v) { j = json{{"uri", v.uri}}; }
void from_json(const json& j, TextDocumentIdentifier& v) { j.at("uri").get_to(v.uri); }

void to_json(json& j, const VersionedTextDocumentIdentifier& v) {
  j = json{{"uri", v.uri}, {"version", v.version}};
}
void from_json(const json& j, VersionedTextDocumentIdentifier& v) {
  j.at("uri").get_to(v.uri);
  v.version = checked_integer<std::int64_t>(j.at("version"), "version");
}

void to_json(json& j, const OptionalVersionedTextDocumentIdentifier& v) {
  j = json{{"uri", v.uri}, {"version", nullptr}};
  if (v.version) j["version"] = *v.version;
}
void from_json(const json& j, OptionalVersionedTextDocumentIdentifier& v) {
  j.at("uri").get_to(v.uri);
  read_optional(j, "version", v.version);
}

void to_json(json& j, const TextDocumentItem& v) {
  j = json{{"uri", v.uri}, {"languageId", v.languageId}, {"version", v.version}, {"text", v.text}};
}
void from_json(const json& j, TextDocumentItem& v) {
  j.at("uri").get_to(v.uri);
  j.at("languageId").get_to(v.languageId);
  v.version = checked_integer<std::int64_t>(j.at("version"), "version");
  j.at("text").get_to(v.text);
}

void to_json(json& j, const TextDocumentPositionParams& v) {
  j = json{{"textDocument", v.textDocument}, {"position", v.position}};
}
void from_json(const json& j, TextDocumentPositionParams& v) {
  j.at("textDocument").get_to(v.textDocument);
  j.at("position").get_to(v.position);
}

void to_json(json& j, const TextDocumentEdit& v) {
  j = json{{"textDocument", v.textDocument}, {"edits", v.edits}};
}
void from_json(const json& j, TextDocumentEdit& v) {
  j.at("textDocument").get_to(v.textDocument);
  j.at("edits").get_to(v.edits);
}

void to_json(json& j, const WorkspaceEdit& v) {
  j = json::object();
  write_optional(j, "changes", v.changes);
  write_optional(j, "documentChanges", v.documentChanges);
}
void from_json(const json& j, WorkspaceEdit& v) {
  read_optional(j, "changes", v.changes);
  read_optional(j, "documentChanges", v.documentChanges);
}

void to_json(json& j, const Command& v) {
  j = json{{"title", v.title}, {"command", v.command}};
  write_optional(j, "arguments", v.arguments);
}
void from_json(const json& j, Command& v) {
  j.at("title").get_to(v.title);
  j.at("command").get_to(v.command);
  read_optional(j, "arguments", v.arguments);
}

void to_json(json& j, const MarkupContent& v) { j = json{{"kind", v.kind}, {"value", v.value}}; }
void from_json(const json& j, MarkupContent& v) {
  j.at("kind").get_to(v.kind);
  j.at("value").get_to(v.value);
}

}  // namespace warplens::protocol
