// LSP 3.17 basic structures: positions, ranges, locations, text documents,
// edits, commands and markup.
//
// Positions here are in the negotiated position encoding (UTF-16 code units
// unless the client agreed to UTF-8 or UTF-32). The engine's byte positions
// are converted in server/, where the text is known.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/jsonrpc.h"
#include "protocol/lsp_json.h"

namespace warplens::protocol {

struct Position {
  int line = 0;
  int character = 0;
  auto operator<=>(const Position&) const = default;
};

struct Range {
  Position start;
  Position end;
  bool operator==(const Range&) const = default;
};

struct Location {
  std::string uri;
  Range range;
  bool operator==(const Location&) const = default;
};

struct TextEdit {
  Range range;
  std::string newText;
  bool operator==(const TextEdit&) const = default;
};

struct TextDocumentIdentifier {
  std::string uri;
};

struct VersionedTextDocumentIdentifier {
  std::string uri;
  std::int64_t version = 0;
};

// `version: null` means "the file on disk" (not open in the editor).
struct OptionalVersionedTextDocumentIdentifier {
  std::string uri;
  std::optional<std::int64_t> version;
};

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  std::int64_t version = 0;
  std::string text;
};

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};

struct TextDocumentEdit {
  OptionalVersionedTextDocumentIdentifier textDocument;
  std::vector<TextEdit> edits;
};

// Either `changes` (uri -> edits) or `documentChanges` (versioned), as the
// client's workspaceEdit.documentChanges capability allows.
struct WorkspaceEdit {
  std::optional<std::map<std::string, std::vector<TextEdit>>> changes;
  std::optional<std::vector<TextDocumentEdit>> documentChanges;
};

struct Command {
  std::string title;
  std::string command;
  std::optional<json> arguments;  // a JSON array
};

namespace markup_kind {
inline constexpr const char* kPlainText = "plaintext";
inline constexpr const char* kMarkdown = "markdown";
}  // namespace markup_kind

struct MarkupContent {
  std::string kind = markup_kind::kMarkdown;
  std::string value;
};

void to_json(json& j, const Position& v);
void from_json(const json& j, Position& v);
void to_json(json& j, const Range& v);
void from_json(const json& j, Range& v);
void to_json(json& j, const Location& v);
void from_json(const json& j, Location& v);
void to_json(json& j, const TextEdit& v);
void from_json(const json& j, TextEdit& v);
void to_json(json& j, const TextDocumentIdentifier& v);
void from_json(const json& j, TextDocumentIdentifier& v);
void to_json(json& j, const VersionedTextDocumentIdentifier& v);
void from_json(const json& j, VersionedTextDocumentIdentifier& v);
void to_json(json& j, const OptionalVersionedTextDocumentIdentifier& v);
void from_json(const json& j, OptionalVersionedTextDocumentIdentifier& v);
void to_json(json& j, const TextDocumentItem& v);
void from_json(const json& j, TextDocumentItem& v);
void to_json(json& j, const TextDocumentPositionParams& v);
void from_json(const json& j, TextDocumentPositionParams& v);
void to_json(json& j, const TextDocumentEdit& v);
void from_json(const json& j, TextDocumentEdit& v);
void to_json(json& j, const WorkspaceEdit& v);
void from_json(const json& j, WorkspaceEdit& v);
void to_json(json& j, const Command& v);
void from_json(const json& j, Command& v);
void to_json(json& j, const MarkupContent& v);
void from_json(const json& j, MarkupContent& v);

}  // namespace warplens::protocol
