#include "server/server_context.h"

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

namespace warplens::server {

unsigned core_count() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned default_worker_count() {
  return std::min(core_count(), 4u);  // each Clang parse holds ~1 GB
}

namespace {

Scheduler::Hooks scheduler_hooks(ServerContext& ctx) {
  Scheduler::Hooks hooks;
  hooks.published = [&ctx](const RecordPtr& r) { ctx.analysis_published.emit(r); };
  hooks.failed = [&ctx](const DocumentPtr& d, const std::string& what) { ctx.analysis_failed.emit(d, what); };
  hooks.activity = [&ctx](std::size_t busy) { ctx.analysis_activity.emit(busy); };
  return hooks;
}

}  // namespace

ServerContext::ServerContext(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions opts)
    : io(io),
      client(out),
      options(std::move(opts)),
      scheduler(io, std::move(analyze),
                options.workers ? std::min(options.workers, core_count()) : default_worker_count(),
                scheduler_hooks(*this)) {
  scheduler.set_debounce(options.debounce);
}

Converter ServerContext::converter(TextLookup& texts, const DocumentPtr& document) const {
  texts.pin(document);
  return Converter(ConvertOptions{encoding, options.docs_dir}, texts, document ? document->path : std::string());
}

void ServerContext::show_message(protocol::MessageType type, const std::string& message) {
  client.notify("window/showMessage", protocol::ShowMessageParams{type, message});
}

void ServerContext::log_message(protocol::MessageType type, const std::string& message) {
  client.notify("window/logMessage", protocol::LogMessageParams{type, message});
}

std::vector<Finding> ServerContext::findings_for(const AnalysisRecord& record) {
  std::vector<Finding> out;
  // clangDiagnostics "off": Clang's own diagnostics are left to clangd or
  // cpptools, which show them already (the front end still parses).
  const bool clang_shown = settings.clang_diagnostics_shown();
  for (const auto& f : record.result.findings)
    if (clang_shown || f.source != "clang") out.push_back(f);
  for (const auto& provider : findings_providers)
    for (auto& f : provider(record, *this)) out.push_back(std::move(f));
  const auto& doc = record.document;
  if (auto it = extra_findings.find(doc->uri); it != extra_findings.end())
    for (const auto& [source, extra] : it->second)
      if (!extra.version || *extra.version == doc->version)
        out.insert(out.end(), extra.findings.begin(), extra.findings.end());
  return out;
}

void ServerContext::refresh_code_lenses() {
  if (!client_capabilities.codeLensRefresh) return;
  client.request("workspace/codeLens/refresh", nullptr, [](const protocol::Response& r) {
    if (r.error) spdlog::debug("workspace/codeLens/refresh: {}", r.error->message);
  });
}

void ServerContext::analyze(const DocumentPtr& document, bool immediately) {
  if (!document || document->path.empty()) return;  // only files can be analysed
  scheduler.update(document, analysis_options(), immediately);
}

std::chrono::milliseconds ServerContext::debounce() const {
  return settings.debounce_ms ? std::chrono::milliseconds(*settings.debounce_ms) : options.debounce;
}

}  // namespace warplens::server
