// Settings: initializationOptions (read at initialize), then
// workspace/didChangeConfiguration. Clients that send `settings: null` (the
// pull model) are asked with workspace/configuration for the `warplens`
// section. New analysis settings re-analyse the open documents.
#include <spdlog/spdlog.h>

#include "protocol/lsp_window.h"
#include "server/features.h"

namespace warplens::server {

namespace {

// What the configuration feature works on.
struct Config {
  Workspace& workspace;
  Analyses& analyses;
  Events& events;
  Client& client;
};

void apply(const Config& c, const json& update) {
  std::vector<std::string> problems;
  Settings next = apply_settings(c.workspace.settings(), update, problems);
  for (const auto& p : problems) {
    spdlog::warn("{}", p);
    c.client.show_message(protocol::MessageType::Warning, "warplens: " + p);
  }
  // Only what reaches the engine warrants a new analysis (not debounceMs, llm, ...).
  bool reanalyze = analysis_settings_differ(next, c.workspace.settings());
  bool republish = next.clang_diagnostics_shown() != c.workspace.settings().clang_diagnostics_shown();
  c.workspace.set_settings(std::move(next));
  c.analyses.update_debounce();
  spdlog::info("settings: {}", settings_to_json(c.workspace.settings()).dump());
  if (reanalyze)
    for (const auto& doc : c.workspace.documents.all()) c.analyses.analyze(doc, /*immediately=*/true);
  else if (republish)  // the same analysis, another selection of it
    for (const auto& doc : c.workspace.documents.all()) c.events.diagnostics_changed.emit(doc->uri);
  c.events.settings_changed.emit();
}

void pull(const Config& c) {
  protocol::ConfigurationParams params{{protocol::ConfigurationItem{std::nullopt, std::string("warplens")}}};
  c.client.request("workspace/configuration", params, [c](const protocol::Response& r) {
    if (r.error) {
      spdlog::warn("workspace/configuration failed: {}", r.error->message);
      return;
    }
    if (!r.result.is_array() || r.result.empty() || r.result[0].is_null()) return;
    apply(c, r.result[0]);  // responses are delivered on the io thread
  });
}

}  // namespace

void register_configuration(Registry& registry, Workspace& workspace, Analyses& analyses, Events& events,
                            Client& client) {
  Config c{workspace, analyses, events, client};
  registry.methods.on_notification<protocol::DidChangeConfigurationParams>(
      "workspace/didChangeConfiguration", [c](const protocol::DidChangeConfigurationParams& p) {
        if (p.settings.is_object() && p.settings.contains("warplens"))
          apply(c, p.settings);
        else if (c.client.capabilities().configuration)
          pull(c);
        else if (!p.settings.is_null())
          apply(c, p.settings);
      });
  events.initialized.connect([c] {
    if (c.client.capabilities().configuration) pull(c);
  });
}

}  // namespace warplens::server
