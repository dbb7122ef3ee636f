// Settings: initializationOptions (read at initialize), then
// workspace/didChangeConfiguration. Clients that send `settings: null` (the
// pull model) are asked with workspace/configuration for the `warplens`
// section. New analysis settings re-analyse the open documents.
#include <spdlog/spdlog.h>

#include "protocol/lsp_window.h"
#include "server/features.h"

namespace warplens::server {

namespace {

void apply(ServerContext& ctx, const json& update) {
  std::vector<std::string> problems;
  Settings next = apply_settings(ctx.settings, update, problems);
  for (const auto& p : problems) {
    spdlog::warn("{}", p);
    ctx.show_message(protocol::MessageType::Warning, "warplens: " + p);
  }
  // Only what reaches the engine warrants a new analysis (not debounceMs, llm, ...).
  bool reanalyze = analysis_settings_differ(next, ctx.settings);
  bool republish = next.clang_diagnostics_shown() != ctx.settings.clang_diagnostics_shown();
  ctx.settings = std::move(next);
  ctx.scheduler.set_debounce(ctx.debounce());
  spdlog::info("settings: {}", settings_to_json(ctx.settings).dump());
  if (reanalyze)
    for (const auto& doc : ctx.documents.all()) ctx.analyze(doc, /*immediately=*/true);
  else if (republish)  // the same analysis, another selection of it
    for (const auto& doc : ctx.documents.all()) ctx.diagnostics_changed.emit(doc->uri);
  ctx.settings_changed.emit();
}

void pull(ServerContext& ctx) {
  protocol::ConfigurationParams params{{protocol::ConfigurationItem{std::nullopt, std::string("warplens")}}};
  ctx.client.request("workspace/configuration", params, [&ctx](const protocol::Response& r) {
    if (r.error) {
      spdlog::warn("workspace/configuration failed: {}", r.error->message);
      return;
    }
    if (!r.result.is_array() || r.result.empty() || r.result[0].is_null()) return;
    apply(ctx, r.result[0]);  // responses are delivered on the io thread
  });
}

}  // namespace

void register_configuration(ServerContext& ctx) {
  ctx.methods.on_notification<protocol::DidChangeConfigurationParams>(
      "workspace/didChangeConfiguration", [&ctx](const protocol::DidChangeConfigurationParams& p) {
        if (p.settings.is_object() && p.settings.contains("warplens"))
          apply(ctx, p.settings);
        else if (ctx.client_capabilities.configuration)
          pull(ctx);
        else if (!p.settings.is_null())
          apply(ctx, p.settings);
      });
  ctx.initialized.connect([&ctx] {
    if (ctx.client_capabilities.configuration) pull(ctx);
  });
}

}  // namespace warplens::server
