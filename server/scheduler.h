// The per-document analysis scheduler, in the spirit of clangd's TUScheduler.
//
// - Every update (new text, or new options) gets a fresh input id. Work is
//   tagged with it; a result whose input id is no longer the document's
//   current one is stale and is dropped, never published.
// - Updates are debounced: a burst of edits restarts the timer, so only the
//   last text is analysed (consecutive edits collapse).
// - A newer update cancels the running analysis through its stop_token.
// - At most one analysis runs per document; across documents, concurrency is
//   bounded by the worker pool (no more threads than cores).
// - A reader (hover, code action) that needs the result of the current
//   version waits for it and cuts the debounce short, like clangd's reads.
//
// Threading: every public member is called on the io_context's thread, and
// every callback runs there. Only the analysis function runs on the pool.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "analysis/analyzer.h"
#include "server/document_store.h"

namespace warplens::server {

// The analysis entry point, injected so tests can substitute a fake engine.
using AnalyzeFn = std::function<AnalysisResult(const SourceFile&, const AnalysisOptions&, std::stop_token)>;

// One completed analysis of one exact text.
struct AnalysisRecord {
  DocumentPtr document;        // the snapshot analysed (uri, version, text)
  AnalysisResult result;
  std::uint64_t generation = 0;  // unique per published record
};
using RecordPtr = std::shared_ptr<const AnalysisRecord>;

// Why a reader did not get a record.
enum class WaitError {
  ContentModified,  // the document moved on to another version
  Closed,           // the document was closed (or never opened)
  Failed,           // the analysis threw
  ShuttingDown,
};
const char* to_string(WaitError e);

class Scheduler {
 public:
  struct Hooks {
    // A fresh record for the document's current input.
    std::function<void(const RecordPtr&)> published;
    // The analysis threw; `what` is its message.
    std::function<void(const DocumentPtr&, const std::string& what)> failed;
    // The number of documents with pending or running work changed.
    std::function<void(std::size_t busy)> activity;
  };

  Scheduler(boost::asio::io_context& io, AnalyzeFn analyze, unsigned workers, Hooks hooks);
  ~Scheduler();  // cancels everything and joins the workers
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void set_debounce(std::chrono::milliseconds debounce);
  std::chrono::milliseconds debounce() const;

  // New text or new options for a document: cancels work on older input and
  // schedules an analysis after the debounce (at once when `immediately`).
  void update(DocumentPtr document, AnalysisOptions options, bool immediately = false);
  // The document was closed: cancels its work, fails its readers.
  void remove(const std::string& uri);

  // The last published record of the document (whatever its version).
  RecordPtr latest(const std::string& uri) const;
  // The record for the current input, if it is already published.
  RecordPtr current(const std::string& uri) const;

  // Calls `ready` with the record of `version` once it is published (at once
  // when it already is), or with an error when that version is superseded,
  // closed or failed. A waiting reader skips the debounce.
  using ReadyCallback = std::function<void(RecordPtr, std::optional<WaitError>)>;
  void when_ready(const std::string& uri, std::int64_t version, ReadyCallback ready);

  // Documents with pending or running work.
  std::size_t busy() const;

  // Cancels all work and waits up to `timeout` for running analyses to
  // return. False when some did not: the caller must not destroy the
  // scheduler then (its destructor would wait for them) but exit the process.
  bool shutdown(std::chrono::milliseconds timeout);

 private:
  struct State;
  std::shared_ptr<State> state_;
  boost::asio::thread_pool pool_;
};

}  // namespace warplens::server
