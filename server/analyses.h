// The analyses of the open documents as features see them (the read side
// of clangd's ClangdServer): the scheduler's records, every finding of a
// record (the analysis's own and the findings providers'), a converter to
// LSP for a record's document, and asking for a (re)analysis with the
// workspace's current options.
//
// Used on the io thread only (the scheduler's rule).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "server/client.h"
#include "formats/convert.h"
#include "server/events.h"
#include "server/registry.h"
#include "server/scheduler.h"
#include "server/workspace.h"

namespace warplens::server {

class Analyses {
 public:
  // The scheduler's hooks emit `events`' analysis_published, analysis_failed
  // and analysis_activity.
  Analyses(boost::asio::io_context& io, AnalyzeFn analyze, unsigned workers, Events& events,
           const Workspace& workspace, const Client& client, const Registry& registry, std::string docs_dir);

  // The scheduler's reads (server/scheduler.h says what each waits for).
  RecordPtr current(const std::string& uri) const { return scheduler_.current(uri); }
  RecordPtr latest(const std::string& uri) const { return scheduler_.latest(uri); }
  void when_ready(const std::string& uri, std::int64_t version, Scheduler::ReadyCallback ready) {
    scheduler_.when_ready(uri, version, std::move(ready));
  }
  std::size_t busy() const { return scheduler_.busy(); }

  // Schedules (re)analysis of an open document with the workspace's
  // current options; documents that are not files are never analysed.
  void analyze(const DocumentPtr& document, bool immediately = false);
  // Forgets a closed document's records and pending work.
  void remove(const std::string& uri) { scheduler_.remove(uri); }
  // After the settings changed: the debounce they name.
  void update_debounce() { scheduler_.set_debounce(workspace_.debounce()); }

  // Every finding of `record`'s version, in publication order: the
  // analysis's own (without Clang's when clangDiagnostics is "off"), then
  // each findings provider's.
  std::vector<Finding> findings_for(const AnalysisRecord& record) const;
  // A converter for results of `document` (pinned as the text to convert with).
  formats::Converter converter(formats::TextLookup& texts, const DocumentPtr& document) const;

  // For the lifecycle only: stops the analyses (server/scheduler.h).
  bool shutdown(std::chrono::milliseconds timeout) { return scheduler_.shutdown(timeout); }

 private:
  const Workspace& workspace_;
  const Client& client_;
  const Registry& registry_;
  std::string docs_dir_;
  Scheduler scheduler_;
};

unsigned core_count();
unsigned default_worker_count();

}  // namespace warplens::server
