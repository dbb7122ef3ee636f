// LSP 3.17 language features warplens serves: hover, code actions (with
// codeAction/resolve), code lenses and workspace/executeCommand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"
#include "protocol/lsp_diagnostics.h"

namespace warplens::protocol {

using HoverParams = TextDocumentPositionParams;

struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};

namespace code_action_kind {
inline constexpr const char* kQuickFix = "quickfix";
inline constexpr const char* kRefactor = "refactor";
inline constexpr const char* kRefactorRewrite = "refactor.rewrite";
inline constexpr const char* kSourceFixAll = "source.fixAll";
}  // namespace code_action_kind

enum class CodeActionTriggerKind : int { Invoked = 1, Automatic = 2 };

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::optional<std::vector<std::string>> only;
  std::optional<CodeActionTriggerKind> triggerKind;
};

struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};

struct CodeActionDisabled {
  std::string reason;
};

struct CodeAction {
  std::string title;
  std::optional<std::string> kind;
  std::vector<Diagnostic> diagnostics;
  std::optional<bool> isPreferred;
  std::optional<CodeActionDisabled> disabled;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
  std::optional<json> data;  // what codeAction/resolve needs to compute `edit`
};

struct CodeLensParams {
  TextDocumentIdentifier textDocument;
};

struct CodeLens {
  Range range;
  std::optional<Command> command;
  std::optional<json> data;
};

// Progress tokens are integers or strings, like request ids.
using ProgressToken = RequestId;

struct ExecuteCommandParams {
  std::string command;
  json arguments = json::array();
  std::optional<ProgressToken> workDoneToken;
};

void to_json(json& j, const Hover& v);
void from_json(const json& j, Hover& v);
void to_json(json& j, const CodeActionContext& v);
void from_json(const json& j, CodeActionContext& v);
void to_json(json& j, const CodeActionParams& v);
void from_json(const json& j, CodeActionParams& v);
void to_json(json& j, const CodeAction& v);
void from_json(const json& j, CodeAction& v);
void to_json(json& j, const CodeLensParams& v);
void from_json(const json& j, CodeLensParams& v);
void to_json(json& j, const CodeLens& v);
void from_json(const json& j, CodeLens& v);
void to_json(json& j, const ExecuteCommandParams& v);
void from_json(const json& j, ExecuteCommandParams& v);

// Reads an integer-or-string token/id; throws json::type_error otherwise.
RequestId read_request_id(const json& j);

}  // namespace warplens::protocol
