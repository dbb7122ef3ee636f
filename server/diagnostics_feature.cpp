// textDocument/publishDiagnostics: every fresh analysis record is published
// with the version it was computed on; extra findings from other sources
// (profiles, later) are merged in; closing a document clears its
// diagnostics.
//
// Only findings located in the document itself are published for it. The
// front end reports problems inside included headers at the #include line
// (as clangd does), so nothing the user must see is lost.
#include <filesystem>

#include <spdlog/spdlog.h>

#include "protocol/lsp_diagnostics.h"
#include "server/features.h"

namespace warplens::server {

namespace {

// The engine reports the main file under the path it was given; a spelling
// that differs (a symlink, `..`) still names the same file on disk.
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

void publish(ServerContext& ctx, const RecordPtr& record) {
  const auto& doc = record->document;
  TextLookup texts(&ctx.documents);
  Converter convert = ctx.converter(texts, doc);
  protocol::PublishDiagnosticsParams params;
  params.uri = doc->uri;
  params.version = doc->version;
  std::size_t elsewhere = 0;
  auto add = [&](const Finding& f) {
    if (!same_file(convert.file_of(f.location), doc->path)) {
      ++elsewhere;
      return;
    }
    params.diagnostics.push_back(convert.diagnostic(f));
  };
  for (const auto& f : record->result.findings) add(f);
  if (auto it = ctx.extra_findings.find(doc->uri); it != ctx.extra_findings.end())
    for (const auto& [source, extra] : it->second)
      if (!extra.version || *extra.version == doc->version)
        for (const auto& f : extra.findings) add(f);
  if (elsewhere) spdlog::debug("{}: {} finding(s) in other files not published", doc->uri, elsewhere);
  spdlog::debug("publishing {} diagnostic(s) for {} version {}", params.diagnostics.size(), doc->uri, doc->version);
  ctx.client.notify("textDocument/publishDiagnostics", params);
}

}  // namespace

void register_diagnostics(ServerContext& ctx) {
  ctx.analysis_published.connect([&ctx](const RecordPtr& record) { publish(ctx, record); });

  ctx.diagnostics_changed.connect([&ctx](const std::string& uri) {
    if (auto record = ctx.scheduler.current(uri)) publish(ctx, record);
  });

  ctx.analysis_failed.connect([&ctx](const DocumentPtr& doc, const std::string& what) {
    ctx.show_message(protocol::MessageType::Error,
                     "warplens: analysing " + doc->path + " failed: " + what + " (see the server log)");
  });

  ctx.document_closed.connect([&ctx](const std::string& uri) {
    ctx.extra_findings.erase(uri);
    ctx.client.notify("textDocument/publishDiagnostics", protocol::PublishDiagnosticsParams{uri, std::nullopt, {}});
  });
}

}  // namespace warplens::server
