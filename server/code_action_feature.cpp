// textDocument/codeAction and codeAction/resolve.
//
// Actions are listed cheaply; when the client can resolve them, the edit is
// computed only when the user picks one. Every action's `data` carries the
// uri, version and analysis generation it was made from (plus what its
// provider needs), so resolve is stateless and refuses with ContentModified
// when the document has changed since: an edit is never applied to text it
// was not computed for.
//
// Built-in provider "fixes": the quick fixes attached to findings (the
// analysis's own and those of the findings providers, such as the
// __launch_bounds__ fix of low-occupancy).
#include <spdlog/spdlog.h>

#include "protocol/lsp_features.h"
#include "server/features.h"
#include "server/request_helpers.h"

namespace warplens::server {

using protocol::ErrorCode;

namespace {

constexpr const char* kFixesProvider = "fixes";

bool kind_wanted(const std::optional<std::string>& kind, const std::optional<std::vector<std::string>>& only) {
  if (!only || only->empty()) return true;
  if (!kind) return false;
  for (const auto& want : *only)  // kinds are hierarchical: "quickfix" covers "quickfix.x"
    if (*kind == want || kind->rfind(want + ".", 0) == 0) return true;
  return false;
}

bool client_resolves_edits(const Client& client) {
  const auto& caps = client.capabilities();
  auto& props = caps.codeActionResolveProperties;
  return caps.codeActionData && std::find(props.begin(), props.end(), "edit") != props.end();
}

// The fix `data` names, checked by code and title: findings providers may
// add findings to a record after actions were listed (resource usage
// arrives after the parse), so an index alone could name another fix.
const Fix* fix_in(const std::vector<Finding>& findings, const json& data) {
  auto fi = data.value("finding", -1);
  auto xi = data.value("fix", -1);
  if (fi < 0 || static_cast<std::size_t>(fi) >= findings.size()) return nullptr;
  const auto& f = findings[static_cast<std::size_t>(fi)];
  if (xi < 0 || static_cast<std::size_t>(xi) >= f.fixes.size()) return nullptr;
  const Fix& fix = f.fixes[static_cast<std::size_t>(xi)];
  if (data.value("code", f.code) != f.code || data.value("title", fix.title) != fix.title) return nullptr;
  return &fix;
}

// What the built-in "fixes" provider reads.
struct FixSources {
  const Workspace& workspace;
  const Analyses& analyses;
  const Client& client;
};

std::vector<protocol::CodeAction> quick_fixes(const FixSources& s, const CodeActionQuery& q) {
  std::vector<protocol::CodeAction> actions;
  const auto& record = q.record;
  formats::TextLookup texts = text_lookup(s.workspace.documents);
  formats::Converter convert = s.analyses.converter(texts, record.document);
  const auto findings = s.analyses.findings_for(record);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    if (f.fixes.empty() || convert.file_of(f.location) != record.document->path) continue;
    if (!touches(f.location.range, q.range)) continue;
    for (std::size_t j = 0; j < f.fixes.size(); ++j) {
      const auto& fix = f.fixes[j];
      protocol::CodeAction a;
      a.title = fix.title;
      a.kind = protocol::code_action_kind::kQuickFix;
      a.diagnostics.push_back(convert.diagnostic(f));
      if (fix.preferred) a.isPreferred = true;
      a.data = json{{"finding", i}, {"fix", j}, {"code", f.code}, {"title", fix.title}};
      if (!q.lazy) a.edit = convert.workspace_edit(fix, s.client.capabilities().documentChanges);
      actions.push_back(std::move(a));
    }
  }
  return actions;
}

void resolve_quick_fix(const FixSources& s, protocol::CodeAction& action, const AnalysisRecord& record) {
  const std::vector<Finding> findings = s.analyses.findings_for(record);  // `fix` points into it
  const Fix* fix = fix_in(findings, *action.data);
  if (!fix) throw RequestError(ErrorCode::ContentModified, "this fix is no longer offered; ask for code actions again");
  formats::TextLookup texts = text_lookup(s.workspace.documents);
  formats::Converter convert = s.analyses.converter(texts, record.document);
  action.edit = convert.workspace_edit(*fix, s.client.capabilities().documentChanges);
}

const CodeActionProvider* provider_named(const Registry& registry, const std::string& name) {
  for (const auto& p : registry.code_action_providers)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

void register_code_actions(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client) {
  registry.capabilities.codeActionProvider =
      protocol::CodeActionOptions{{protocol::code_action_kind::kQuickFix}, true};
  FixSources sources{workspace, analyses, client};
  registry.code_action_providers.push_back(
      {kFixesProvider, [sources](const CodeActionQuery& q) { return quick_fixes(sources, q); },
       [sources](protocol::CodeAction& action, const AnalysisRecord& record) {
         resolve_quick_fix(sources, action, record);
       }});

  registry.methods.on_request<protocol::CodeActionParams>(
      "textDocument/codeAction",
      [&registry, &workspace, &analyses, &client](const protocol::CodeActionParams& p, RequestContext& rc) {
        answer_from_current_record(workspace, analyses, rc, p.textDocument.uri, json::array(),
                                   [&registry, &client, p](const RecordPtr& record) {
          CodeActionQuery query{*record, engine_range(*record, p.range, client.encoding()), p,
                                client_resolves_edits(client)};
          json actions = json::array();
          for (const auto& provider : registry.code_action_providers) {
            for (auto& action : provider.provide(query)) {
              if (!kind_wanted(action.kind, p.context.only)) continue;
              json data = action.data.value_or(json::object());
              data["provider"] = provider.name;
              data["uri"] = record->document->uri;
              data["version"] = record->document->version;
              data["generation"] = record->generation;
              action.data = std::move(data);
              actions.push_back(action);
            }
          }
          return actions;
        });
      });

  registry.methods.on_request<protocol::CodeAction>(
      "codeAction/resolve", [&registry, &workspace, &analyses](const protocol::CodeAction& input, RequestContext& rc) {
        protocol::CodeAction action = input;
        if (action.edit) return rc.reply.result(action);  // nothing to resolve
        if (!action.data || !action.data->is_object() || !action.data->contains("provider"))
          throw RequestError(ErrorCode::InvalidParams, "this code action carries no warplens data to resolve it");
        const json& data = *action.data;
        const auto* provider = provider_named(registry, data.value("provider", std::string()));
        if (!provider || !provider->resolve)
          throw RequestError(ErrorCode::InvalidParams, "unknown code action provider in data");
        const std::string uri = data.value("uri", std::string());
        auto doc = workspace.documents.get(uri);
        if (!doc) throw RequestError(ErrorCode::ContentModified, "the document was closed since this action was offered");
        auto record = analyses.current(uri);
        if (doc->version != data.value("version", std::int64_t{-1}) || !record ||
            record->generation != data.value("generation", std::uint64_t{0}))
          throw RequestError(ErrorCode::ContentModified,
                             "the document changed since this action was offered; ask for code actions again");
        provider->resolve(action, *record);
        rc.reply.result(action);
      });
}

}  // namespace warplens::server
