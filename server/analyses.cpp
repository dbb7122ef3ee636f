#include "server/analyses.h"

#include <algorithm>
#include <thread>

namespace warplens::server {

unsigned core_count() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned default_worker_count() {
  return std::min(core_count(), 4u);  // each Clang parse holds ~1 GB
}

namespace {

Scheduler::Hooks scheduler_hooks(Events& events) {
  Scheduler::Hooks hooks;
  hooks.published = [&events](const RecordPtr& r) { events.analysis_published.emit(r); };
  hooks.failed = [&events](const DocumentPtr& d, const std::string& what) { events.analysis_failed.emit(d, what); };
  hooks.activity = [&events](std::size_t busy) { events.analysis_activity.emit(busy); };
  return hooks;
}

}  // namespace

Analyses::Analyses(boost::asio::io_context& io, AnalyzeFn analyze, unsigned workers, Events& events,
                   const Workspace& workspace, const Client& client, const Registry& registry, std::string docs_dir)
    : workspace_(workspace),
      client_(client),
      registry_(registry),
      docs_dir_(std::move(docs_dir)),
      scheduler_(io, std::move(analyze), workers ? std::min(workers, core_count()) : default_worker_count(),
                 scheduler_hooks(events)) {
  update_debounce();
}

void Analyses::analyze(const DocumentPtr& document, bool immediately) {
  if (!document || document->path.empty()) return;  // only files can be analysed
  scheduler_.update(document, workspace_.analysis_options(), immediately);
}

std::vector<Finding> Analyses::findings_for(const AnalysisRecord& record) const {
  std::vector<Finding> out;
  // clangDiagnostics "off": Clang's own diagnostics are left to clangd or
  // cpptools, which show them already (the front end still parses).
  const bool clang_shown = workspace_.settings().clang_diagnostics_shown();
  for (const auto& f : record.result.findings)
    if (clang_shown || f.source != "clang") out.push_back(f);
  for (const auto& provider : registry_.findings_providers)
    for (auto& f : provider(record)) out.push_back(std::move(f));
  return out;
}

formats::Converter Analyses::converter(formats::TextLookup& texts, const DocumentPtr& document) const {
  pin(texts, document);
  return formats::Converter(formats::ConvertOptions{client_.encoding(), docs_dir_}, texts,
                            document ? document->path : std::string());
}

}  // namespace warplens::server
