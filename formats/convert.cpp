#include "formats/convert.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/uri.h"

namespace warplens::formats {

const std::string& Converter::file_of(const Location& location) const {
  return location.file.empty() ? main_path_ : location.file;
}

protocol::Range Converter::range(const std::string& file, const Range& r) {
  if (const SourceText* text = texts_.get(file).text) return text->to_client(r, options_.encoding);
  return {{r.start.line, r.start.column}, {r.end.line, r.end.column}};
}

protocol::Location Converter::location(const Location& l) {
  const std::string& file = file_of(l);
  return {uri_from_path(file), range(file, l.range)};
}

protocol::DiagnosticSeverity to_lsp(Severity severity) {
  return static_cast<protocol::DiagnosticSeverity>(static_cast<int>(severity));
}

nlohmann::json evidence_to_json(const Evidence& evidence) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : evidence.fields) std::visit([&](const auto& v) { j[key] = v; }, value);
  return j;
}

std::optional<std::string> docs_href(const std::string& docs_dir, const std::string& code) {
  if (docs_dir.empty() || code.empty() || code.find('/') != std::string::npos) return std::nullopt;
  std::error_code ec;
  auto page = std::filesystem::path(docs_dir) / (code + ".md");
  if (!std::filesystem::is_regular_file(page, ec)) return std::nullopt;
  return uri_from_path(page.string());
}

protocol::Diagnostic Converter::diagnostic(const Finding& f) {
  protocol::Diagnostic d;
  d.range = range(file_of(f.location), f.location.range);
  d.severity = to_lsp(f.severity);
  if (!f.code.empty()) d.code = f.code;
  if (auto href = docs_href(options_.docs_dir, f.code)) d.codeDescription = protocol::CodeDescription{*href};
  d.source = f.source.empty() ? std::string("warplens") : f.source;
  d.message = f.message;
  if (f.unnecessary) d.tags.push_back(protocol::DiagnosticTag::Unnecessary);
  for (const auto& rel : f.related) d.relatedInformation.push_back({location(rel.location), rel.message});
  if (!f.data.fields.empty()) d.data = evidence_to_json(f.data);
  return d;
}

std::vector<protocol::TextEdit> Converter::text_edits(const std::string& file, const std::vector<TextEdit>& edits) {
  std::vector<protocol::TextEdit> out;
  for (const auto& e : edits) out.push_back({range(file, e.range), e.new_text});
  return out;
}

protocol::WorkspaceEdit Converter::workspace_edit(const Fix& fix, bool document_changes) {
  const std::string& file = fix.file.empty() ? main_path_ : fix.file;
  auto edits = text_edits(file, fix.edits);
  protocol::WorkspaceEdit w;
  if (document_changes) {
    protocol::TextDocumentEdit e;
    e.textDocument = {uri_from_path(file), texts_.get(file).version};
    e.edits = std::move(edits);
    w.documentChanges = std::vector<protocol::TextDocumentEdit>{std::move(e)};
  } else {
    w.changes = std::map<std::string, std::vector<protocol::TextEdit>>{{uri_from_path(file), std::move(edits)}};
  }
  return w;
}

}  // namespace warplens::formats
