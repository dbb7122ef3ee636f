// LSP 3.17 lifecycle: initialize params/result, the client capabilities
// warplens looks at, and the capabilities it announces.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"
#include "protocol/lsp_document_sync.h"

namespace warplens::protocol {

namespace position_encoding_kind {
inline constexpr const char* kUtf8 = "utf-8";
inline constexpr const char* kUtf16 = "utf-16";
inline constexpr const char* kUtf32 = "utf-32";
}  // namespace position_encoding_kind

// The subset of ClientCapabilities warplens uses, flattened from the nested
// JSON (each member names its JSON path). Missing means "not supported", as
// the spec says.
struct ClientCapabilities {
  std::vector<std::string> positionEncodings;       // general.positionEncodings
  bool workDoneProgress = false;                    // window.workDoneProgress
  bool applyEdit = false;                           // workspace.applyEdit
  bool documentChanges = false;                     // workspace.workspaceEdit.documentChanges
  bool configuration = false;                       // workspace.configuration
  bool codeLensRefresh = false;                     // workspace.codeLens.refreshSupport
  bool diagnosticVersionSupport = false;            // textDocument.publishDiagnostics.versionSupport
  bool diagnosticRelatedInformation = false;        // ...publishDiagnostics.relatedInformation
  bool diagnosticCodeDescription = false;           // ...publishDiagnostics.codeDescriptionSupport
  bool diagnosticData = false;                      // ...publishDiagnostics.dataSupport
  std::vector<std::string> hoverContentFormat;      // textDocument.hover.contentFormat
  bool codeActionLiterals = false;                  // textDocument.codeAction.codeActionLiteralSupport
  bool codeActionData = false;                      // textDocument.codeAction.dataSupport
  std::vector<std::string> codeActionResolveProperties;  // ...codeAction.resolveSupport.properties
  json raw;                                         // everything, for features that need more
};

struct ClientInfo {
  std::string name;
  std::optional<std::string> version;
};

struct InitializeParams {
  std::optional<std::int64_t> processId;
  std::optional<ClientInfo> clientInfo;
  std::optional<std::string> rootUri;
  ClientCapabilities capabilities;
  json initializationOptions;  // null when absent
  std::optional<std::string> trace;
};

struct TextDocumentSyncOptions {
  bool openClose = true;
  TextDocumentSyncKind change = TextDocumentSyncKind::Incremental;
};

struct CodeActionOptions {
  std::vector<std::string> codeActionKinds;
  bool resolveProvider = false;
};

struct CodeLensOptions {
  bool resolveProvider = false;
};

struct ExecuteCommandOptions {
  std::vector<std::string> commands;
  bool workDoneProgress = false;
};

struct ServerCapabilities {
  std::string positionEncoding = position_encoding_kind::kUtf16;
  TextDocumentSyncOptions textDocumentSync;
  bool hoverProvider = false;
  std::optional<CodeActionOptions> codeActionProvider;
  std::optional<CodeLensOptions> codeLensProvider;
  std::optional<ExecuteCommandOptions> executeCommandProvider;
};

struct ServerInfo {
  std::string name;
  std::optional<std::string> version;
};

struct InitializeResult {
  ServerCapabilities capabilities;
  std::optional<ServerInfo> serverInfo;
};

void from_json(const json& j, ClientCapabilities& v);
void to_json(json& j, const ClientCapabilities& v);
void from_json(const json& j, ClientInfo& v);
void to_json(json& j, const ClientInfo& v);
void from_json(const json& j, InitializeParams& v);
void to_json(json& j, const InitializeParams& v);
void to_json(json& j, const ServerCapabilities& v);
void from_json(const json& j, ServerCapabilities& v);
void to_json(json& j, const InitializeResult& v);
void from_json(const json& j, InitializeResult& v);

}  // namespace warplens::protocol
