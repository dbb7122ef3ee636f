// textDocument/publishDiagnostics: every fresh analysis record is published
// with the version it was computed on, together with what the findings
// providers derive for that same record (resource usage, measured
// profiles); closing a document clears its diagnostics.
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

void publish(const Workspace& workspace, const Analyses& analyses, Client& client, const RecordPtr& record) {
  const auto& doc = record->document;
  formats::TextLookup texts = text_lookup(workspace.documents);
  formats::Converter convert = analyses.converter(texts, doc);
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
  for (const auto& f : analyses.findings_for(*record)) add(f);
  if (elsewhere) spdlog::debug("{}: {} finding(s) in other files not published", doc->uri, elsewhere);
  spdlog::debug("publishing {} diagnostic(s) for {} version {}", params.diagnostics.size(), doc->uri, doc->version);
  client.notify("textDocument/publishDiagnostics", params);
}

}  // namespace

void register_diagnostics(Events& events, const Workspace& workspace, Analyses& analyses, Client& client) {
  events.analysis_published.connect(
      [&workspace, &analyses, &client](const RecordPtr& record) { publish(workspace, analyses, client, record); });

  events.diagnostics_changed.connect([&workspace, &analyses, &client](const std::string& uri) {
    if (auto record = analyses.current(uri)) publish(workspace, analyses, client, record);
  });

  events.analysis_failed.connect([&client](const DocumentPtr& doc, const std::string& what) {
    client.show_message(protocol::MessageType::Error,
                        "warplens: analysing " + doc->path + " failed: " + what + " (see the server log)");
  });

  events.document_closed.connect([&client](const std::string& uri) {
    client.notify("textDocument/publishDiagnostics", protocol::PublishDiagnosticsParams{uri, std::nullopt, {}});
  });
}

}  // namespace warplens::server
