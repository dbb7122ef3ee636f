// Engine -> LSP conversions: Finding -> Diagnostic, Fix -> WorkspaceEdit,
// engine ranges (UTF-8 byte columns) -> client ranges (negotiated encoding).
//
// Converting a column needs the text of the line it is on, so conversions go
// through a TextLookup (formats/text_lookup.h): the exact snapshot that was
// analysed, other open documents, then files on disk. When no text can be
// found the columns are passed through unchanged (correct for ASCII, the
// common case).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "formats/position_encoding.h"
#include "formats/text_lookup.h"
#include "protocol/lsp_diagnostics.h"
#include "protocol/lsp_features.h"

namespace warplens::formats {

struct ConvertOptions {
  PositionEncoding encoding = PositionEncoding::Utf16;
  std::string docs_dir;  // holds <code>.md pages; empty: no codeDescription links
};

class Converter {
 public:
  Converter(ConvertOptions options, TextLookup& texts, std::string main_path)
      : options_(std::move(options)), texts_(texts), main_path_(std::move(main_path)) {}

  // The file a location is in: the main file when the engine left it empty.
  const std::string& file_of(const Location& location) const;

  protocol::Range range(const std::string& file, const Range& range);
  protocol::Location location(const Location& location);
  protocol::Diagnostic diagnostic(const Finding& finding);
  std::vector<protocol::TextEdit> text_edits(const std::string& file, const std::vector<TextEdit>& edits);
  // `document_changes`: versioned TextDocumentEdits (the client supports
  // them); otherwise the plain uri -> edits map.
  protocol::WorkspaceEdit workspace_edit(const Fix& fix, bool document_changes);

  PositionEncoding encoding() const { return options_.encoding; }

 private:
  ConvertOptions options_;
  TextLookup& texts_;
  std::string main_path_;
};

protocol::DiagnosticSeverity to_lsp(Severity severity);
nlohmann::json evidence_to_json(const Evidence& evidence);
// file:// URI of <docs_dir>/<code>.md when that page exists.
std::optional<std::string> docs_href(const std::string& docs_dir, const std::string& code);

}  // namespace warplens::formats
