// Resource usage and occupancy for the open documents, computed in the
// background after each parse.
//
// nvcc takes ~0.4-1.5 s on a cache miss, so it never runs on the request
// path or the typing path: each published analysis record is handed to
// submit(), which runs the occupancy function on this service's own worker
// thread (one: nvcc is heavy and the machine's cores are shared with the
// parses). Per document, only the newest record matters: a newer one
// cancels the running computation (its stop_token kills nvcc) and replaces
// any queued one. A result is kept only for the record it was computed
// from, identified by its generation, and only while that record is still
// the document's current one; a result for an older version is dropped.
//
// Threading: every member is called on the io_context's thread, and every
// callback runs there. Only the occupancy function runs on the worker.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "analysis/occupancy_findings.h"
#include "server/scheduler.h"

namespace warplens::server {

using OccupancyFn = std::function<OccupancyAnalysis(const SourceFile&, const KernelModel&, const AnalysisOptions&,
                                                    std::stop_token)>;
using OccupancyPtr = std::shared_ptr<const OccupancyAnalysis>;

class OccupancyService {
 public:
  struct Hooks {
    // Is this record still its document's current one? (Results for others are dropped.)
    std::function<bool(const RecordPtr&)> is_current;
    // A result for `record` is ready (kept: result(record) returns it).
    std::function<void(const RecordPtr&)> ready;
  };

  OccupancyService(boost::asio::io_context& io, OccupancyFn compute, Hooks hooks);
  ~OccupancyService();  // cancels everything and joins the worker
  OccupancyService(const OccupancyService&) = delete;
  OccupancyService& operator=(const OccupancyService&) = delete;

  // A newly published record: computes its resources unless it has nothing
  // to compute (not parsed, cancelled, no device code, not a file). Returns
  // whether it was queued.
  bool submit(const RecordPtr& record, const AnalysisOptions& options);
  // The document was closed: cancels its work and forgets its result.
  void forget(const std::string& uri);
  // Shutdown: cancels everything; later submissions are ignored.
  void stop();

  // The result computed for exactly this record, or null.
  OccupancyPtr result(const AnalysisRecord& record) const;
  // True while this record's result is being computed (or queued).
  bool pending(const AnalysisRecord& record) const;
  // The newest result kept for the document, whichever record it was
  // computed from (an older version while a newer one is pending), or empty.
  // Lets the features show the last known numbers until fresh ones arrive.
  struct Latest {
    RecordPtr record;
    OccupancyPtr result;
  };
  Latest latest(const std::string& uri) const;
  // Calls `done` with this record's result once it is ready (at once when it
  // is), or with null when there will be none (nothing to compute,
  // superseded, closed, stopped).
  void when_ready(const RecordPtr& record, std::function<void(OccupancyPtr)> done);

  // Computations started so far (for tests and logs).
  int started() const { return started_; }

 private:
  struct Waiter {
    std::uint64_t generation;
    std::function<void(OccupancyPtr)> done;
  };
  struct Doc {
    RecordPtr wanted;          // the newest record, whose result is wanted
    AnalysisOptions options;   // for `wanted`
    RecordPtr running;         // being computed (may be older than `wanted`)
    std::stop_source stop;     // of `running`
    RecordPtr result_record;   // what `result` was computed from
    OccupancyPtr result;
    std::vector<Waiter> waiters;
  };

  void start(const std::string& uri, Doc& doc);
  void finished(const std::string& uri, const RecordPtr& record, OccupancyPtr result);
  // Answers the waiters not waiting for `keep` (0: all) with null.
  static void fail_waiters(Doc& doc, std::uint64_t keep = 0);

  boost::asio::io_context& io_;
  OccupancyFn compute_;
  Hooks hooks_;
  std::map<std::string, Doc> docs_;
  bool stopped_ = false;
  int started_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  boost::asio::thread_pool worker_{1};
};

}  // namespace warplens::server
