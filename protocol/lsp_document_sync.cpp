#include "protocol/lsp_document_sync.h"

namespace warplens::protocol {

void from_json(const json& j, DidOpenTextDocumentParams& v) { j.at("textDocument").get_to(v.textDocument); }
void to_json(json& j, const DidOpenTextDocumentParams& v) { j = json{{"textDocument", v.textDocument}}; }

void from_json(const json& j, TextDocumentContentChangeEvent& v) {
  read_optional(j, "range", v.range);
  j.at("text").get_to(v.text);
}
void to_json(json& j, const TextDocumentContentChangeEvent& v) {
  j = json{{"text", v.text}};
  write_optional(j, "range", v.range);
}

void from_json(const json& j, DidChangeTextDocumentParams& v) {
  j.at("textDocument").get_to(v.textDocument);
  j.at("contentChanges").get_to(v.contentChanges);
}
void to_json(json& j, const DidChangeTextDocumentParams& v) {
  j = json{{"textDocument", v.textDocument}, {"contentChanges", v.contentChanges}};
}

void from_json(const json& j, DidCloseTextDocumentParams& v) { j.at("textDocument").get_to(v.textDocument); }
void to_json(json& j, const DidCloseTextDocumentParams& v) { j = json{{"textDocument", v.textDocument}}; }

}  // namespace warplens::protocol
