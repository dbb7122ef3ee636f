#include <doctest/doctest.h>

#include "protocol/lsp_diagnostics.h"
#include "protocol/lsp_document_sync.h"
#include "protocol/lsp_features.h"
#include "protocol/lsp_lifecycle.h"
#include "protocol/lsp_warplens.h"
#include "protocol/lsp_window.h"

using namespace warplens::protocol;

TEST_CASE("Diagnostic writes every field it has and omits the absent ones") {
  Diagnostic d;
  d.range = {{1, 2}, {1, 5}};
  d.message = "m";
  json bare = d;
  CHECK(bare == json{{"range", {{"start", {{"line", 1}, {"character", 2}}}, {"end", {{"line", 1}, {"character", 5}}}}},
                     {"message", "m"}});

  d.severity = DiagnosticSeverity::Warning;
  d.code = "uncoalesced-global";
  d.codeDescription = CodeDescription{"file:///docs/uncoalesced-global.md"};
  d.source = "warplens";
  d.tags = {DiagnosticTag::Unnecessary};
  DiagnosticRelatedInformation related;
  related.location.uri = "file:///a.cu";
  related.location.range = {{3, 0}, {3, 4}};
  related.message = "declared here";
  d.relatedInformation.push_back(related);
  d.data = json{{"sectors", 32}};
  json full = d;
  CHECK(full["severity"] == 2);
  CHECK(full["code"] == "uncoalesced-global");
  CHECK(full["codeDescription"]["href"] == "file:///docs/uncoalesced-global.md");
  CHECK(full["source"] == "warplens");
  CHECK(full["tags"] == json::array({1}));
  CHECK(full["relatedInformation"][0]["location"]["uri"] == "file:///a.cu");
  CHECK(full["data"]["sectors"] == 32);

  Diagnostic back = full.get<Diagnostic>();
  CHECK(back.range == d.range);
  CHECK(back.code == d.code);
  CHECK(back.tags.size() == 1);
  CHECK(back.relatedInformation.size() == 1);
  CHECK((*back.data)["sectors"] == 32);
}

TEST_CASE("integer diagnostic codes from clients are read as text") {
  json j = {{"range", Range{}}, {"message", "x"}, {"code", 42}};
  CHECK(j.get<Diagnostic>().code == "42");
}

TEST_CASE("missing required members throw json exceptions (answered with InvalidParams)") {
  CHECK_THROWS_AS(json({{"line", 1}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"textDocument", {{"uri", "file:///a"}}}}).get<DidChangeTextDocumentParams>(),
                  json::exception);
  CHECK_THROWS_AS(json({{"id", 1.5}}).get<CancelParams>(), json::exception);
}

TEST_CASE("didChange distinguishes incremental and full changes") {
  json j = {{"textDocument", {{"uri", "file:///a.cu"}, {"version", 3}}},
            {"contentChanges",
             {{{"range", Range{{0, 1}, {0, 2}}}, {"rangeLength", 1}, {"text", "x"}}, {{"text", "whole"}}}}};
  auto p = j.get<DidChangeTextDocumentParams>();
  CHECK(p.textDocument.version == 3);
  REQUIRE(p.contentChanges.size() == 2);
  REQUIRE(p.contentChanges[0].range);
  CHECK(p.contentChanges[0].range->end.character == 2);
  CHECK_FALSE(p.contentChanges[1].range);
}

TEST_CASE("client capabilities are read from their nested paths") {
  json caps = {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}},
               {"window", {{"workDoneProgress", true}}},
               {"workspace", {{"workspaceEdit", {{"documentChanges", true}}}, {"configuration", true}}},
               {"textDocument",
                {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}},
                 {"publishDiagnostics", {{"versionSupport", true}}},
                 {"codeAction",
                  {{"dataSupport", true},
                   {"codeActionLiteralSupport", {{"codeActionKind", {{"valueSet", {"quickfix"}}}}}},
                   {"resolveSupport", {{"properties", {"edit"}}}}}}}}};
  auto params = json{{"processId", 12}, {"capabilities", caps}, {"initializationOptions", {{"warplens", {}}}}}
                    .get<InitializeParams>();
  const auto& c = params.capabilities;
  CHECK(c.positionEncodings == std::vector<std::string>{"utf-8", "utf-16"});
  CHECK(c.workDoneProgress);
  CHECK(c.documentChanges);
  CHECK(c.configuration);
  CHECK(c.diagnosticVersionSupport);
  CHECK(c.codeActionLiterals);
  CHECK(c.codeActionData);
  CHECK(c.codeActionResolveProperties == std::vector<std::string>{"edit"});
  CHECK(c.hoverContentFormat.front() == "markdown");
  CHECK_FALSE(c.applyEdit);
  CHECK(params.processId == 12);
  CHECK(params.initializationOptions.contains("warplens"));

  auto empty = json{{"processId", nullptr}, {"capabilities", json::object()}}.get<InitializeParams>();
  CHECK(empty.capabilities.positionEncodings.empty());
  CHECK_FALSE(empty.processId);
}

TEST_CASE("server capabilities round-trip") {
  InitializeResult r;
  r.capabilities.positionEncoding = "utf-8";
  r.capabilities.hoverProvider = true;
  r.capabilities.codeActionProvider = CodeActionOptions{{"quickfix"}, true};
  r.capabilities.codeLensProvider = CodeLensOptions{false};
  r.capabilities.executeCommandProvider = ExecuteCommandOptions{{"warplens.cancelJob"}, true};
  r.serverInfo = ServerInfo{"warplens", "0.1.0"};
  json j = r;
  CHECK(j["capabilities"]["textDocumentSync"]["change"] == 2);
  CHECK(j["capabilities"]["codeActionProvider"]["resolveProvider"] == true);
  auto back = j.get<InitializeResult>();
  CHECK(back.capabilities.positionEncoding == "utf-8");
  CHECK(back.capabilities.executeCommandProvider->commands.front() == "warplens.cancelJob");
  CHECK(back.serverInfo->version == "0.1.0");
}

TEST_CASE("code actions carry data for lazy resolution") {
  CodeAction a;
  a.title = "Pad tile";
  a.kind = code_action_kind::kQuickFix;
  a.isPreferred = true;
  a.data = json{{"uri", "file:///a.cu"}, {"version", 4}};
  json j = a;
  CHECK_FALSE(j.contains("edit"));
  CHECK_FALSE(j.contains("diagnostics"));
  auto back = j.get<CodeAction>();
  CHECK((*back.data)["version"] == 4);

  TextDocumentEdit change;
  change.textDocument.uri = "file:///a.cu";
  change.textDocument.version = 4;
  change.edits.push_back(TextEdit{Range{{1, 0}, {1, 1}}, "x"});
  WorkspaceEdit edit;
  edit.documentChanges = std::vector<TextDocumentEdit>{change};
  a.edit = edit;
  json with_edit = a;
  CHECK(with_edit["edit"]["documentChanges"][0]["textDocument"]["version"] == 4);
  CHECK_FALSE(with_edit["edit"].contains("changes"));
  TextDocumentEdit unversioned{{"file:///b.cu", std::nullopt}, {}};
  CHECK(json(unversioned)["textDocument"]["version"].is_null());
}

TEST_CASE("progress values have the right kind") {
  json begin = WorkDoneProgressBegin{"Profiling", true, std::string("starting"), 0};
  CHECK(begin["kind"] == "begin");
  CHECK(begin["cancellable"] == true);
  json report = WorkDoneProgressReport{std::nullopt, std::string("half"), 50};
  CHECK(report["kind"] == "report");
  CHECK_FALSE(report.contains("cancellable"));
  json end = WorkDoneProgressEnd{};
  CHECK(end == json{{"kind", "end"}});
  ProgressParams p{RequestId{std::string("tok")}, begin};
  CHECK(json(p)["token"] == "tok");
}

TEST_CASE("executeCommand reads optional arguments and a work-done token") {
  auto p = json{{"command", "warplens.cancelJob"}, {"workDoneToken", 5}}.get<ExecuteCommandParams>();
  CHECK(p.arguments.is_array());
  CHECK(p.arguments.empty());
  CHECK(p.workDoneToken == RequestId{std::int64_t{5}});
  CHECK_THROWS(json{{"command", "x"}, {"arguments", {{"a", 1}}}}.get<ExecuteCommandParams>());
}

TEST_CASE("the warplens/status notification has the documented shape") {
  StatusParams s;
  s.state = "ready";
  s.frontend = true;
  json j = s;
  for (const char* key : {"state", "frontend", "cudaFound", "cudaPath", "cudaVersion", "degraded", "gpu"})
    CHECK(j.contains(key));
  CHECK(j["gpu"].is_null());
  CHECK(j.get<StatusParams>() == s);
}
