// LSP 3.17 text document synchronisation: didOpen, didChange (full and
// incremental), didClose.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"

namespace warplens::protocol {

enum class TextDocumentSyncKind : int { None = 0, Full = 1, Incremental = 2 };

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};

// With `range`: replace that range (incremental). Without: the whole text.
// `rangeLength` is deprecated in the spec and ignored.
struct TextDocumentContentChangeEvent {
  std::optional<Range> range;
  std::string text;
};

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};

void from_json(const json& j, DidOpenTextDocumentParams& v);
void to_json(json& j, const DidOpenTextDocumentParams& v);
void from_json(const json& j, TextDocumentContentChangeEvent& v);
void to_json(json& j, const TextDocumentContentChangeEvent& v);
void from_json(const json& j, DidChangeTextDocumentParams& v);
void to_json(json& j, const DidChangeTextDocumentParams& v);
void from_json(const json& j, DidCloseTextDocumentParams& v);
void to_json(json& j, const DidCloseTextDocumentParams& v);

}  // namespace warplens::protocol
