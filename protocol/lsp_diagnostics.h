// LSP 3.17 diagnostics: Diagnostic with every field warplens uses (code,
// codeDescription, source, severity, tags, relatedInformation, data) and
// textDocument/publishDiagnostics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"

namespace warplens::protocol {

enum class DiagnosticSeverity : int { Error = 1, Warning = 2, Information = 3, Hint = 4 };
enum class DiagnosticTag : int { Unnecessary = 1, Deprecated = 2 };

struct CodeDescription {
  std::string href;  // a URI
};

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

struct Diagnostic {
  Range range;
  std::optional<DiagnosticSeverity> severity;
  std::optional<std::string> code;  // LSP allows integer | string; integers are read as text
  std::optional<CodeDescription> codeDescription;
  std::optional<std::string> source;
  std::string message;
  std::vector<DiagnosticTag> tags;
  std::vector<DiagnosticRelatedInformation> relatedInformation;
  std::optional<json> data;  // sent back by the client in codeAction requests
};

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<std::int64_t> version;
  std::vector<Diagnostic> diagnostics;
};

void to_json(json& j, const CodeDescription& v);
void from_json(const json& j, CodeDescription& v);
void to_json(json& j, const DiagnosticRelatedInformation& v);
void from_json(const json& j, DiagnosticRelatedInformation& v);
void to_json(json& j, const Diagnostic& v);
void from_json(const json& j, Diagnostic& v);
void to_json(json& j, const PublishDiagnosticsParams& v);
void from_json(const json& j, PublishDiagnosticsParams& v);

}  // namespace warplens::protocol
