#include "server/occupancy_service.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "server/occupancy_engine.h"

namespace warplens::server {

namespace {

bool worth_computing(const AnalysisRecord& record) {
  return record.document && !record.document->path.empty() && resource_skip_reason(record.result).empty();
}

// What the user sees when the pipeline itself throws (it reports nvcc's
// problems as findings, so this is a bug or an exhausted machine).
OccupancyAnalysis failure(const AnalysisRecord& record, const std::string& what) {
  OccupancyAnalysis a;
  a.resources.status = ResourceUsageStatus::Failed;
  a.resources.message = what;
  Finding f;
  f.code = codes::kResourceUsage;
  f.severity = Severity::Warning;
  f.location.file = record.document->path;
  f.message = "resource usage could not be computed: " + what;
  a.findings.push_back(std::move(f));
  return a;
}

}  // namespace

OccupancyService::OccupancyService(boost::asio::io_context& io, OccupancyFn compute, Hooks hooks)
    : io_(io), compute_(std::move(compute)), hooks_(std::move(hooks)) {}

OccupancyService::~OccupancyService() {
  *alive_ = false;
  stop();
  worker_.join();
}

bool OccupancyService::submit(const RecordPtr& record, const AnalysisOptions& options) {
  const std::string& uri = record->document->uri;
  if (stopped_ || !worth_computing(*record)) {
    if (auto it = docs_.find(uri); it != docs_.end()) {
      it->second.wanted.reset();
      it->second.stop.request_stop();
      fail_waiters(it->second);
    }
    return false;
  }
  Doc& doc = docs_[uri];
  fail_waiters(doc, record->generation);
  doc.wanted = record;
  doc.options = options;
  if (doc.running)
    doc.stop.request_stop();  // finished() starts `wanted` next
  else
    start(uri, doc);
  return true;
}

void OccupancyService::start(const std::string& uri, Doc& doc) {
  doc.running = doc.wanted;
  doc.stop = std::stop_source();
  ++started_;
  auto record = doc.running;
  auto options = doc.options;
  auto token = doc.stop.get_token();
  boost::asio::post(worker_, [this, alive = std::weak_ptr<bool>(alive_), uri, record, options, token] {
    OccupancyPtr result;
    try {
      SourceFile file{record->document->path, record->document->text.text()};
      result = std::make_shared<const OccupancyAnalysis>(compute_(file, record->result.model, options, token));
    } catch (const std::exception& e) {
      spdlog::error("resource usage of {} failed: {}", uri, e.what());
      result = std::make_shared<const OccupancyAnalysis>(failure(*record, e.what()));
    }
    // `this` outlives the worker (the destructor joins it); the io_context
    // may run this after the service is gone, hence the liveness check.
    boost::asio::post(io_, [this, alive, uri, record, result] {
      if (auto a = alive.lock(); a && *a) finished(uri, record, result);
    });
  });
}

void OccupancyService::finished(const std::string& uri, const RecordPtr& record, OccupancyPtr result) {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return;  // closed meanwhile
  Doc& doc = it->second;
  if (doc.running == record) doc.running.reset();
  bool wanted = doc.wanted == record;
  if (wanted && !result->cancelled && hooks_.is_current(record)) {
    spdlog::debug("resource usage of {} version {}: {} finding(s), {} kernel(s){}", uri, record->document->version,
                  result->findings.size(), result->kernels.size(), result->resources.from_cache ? " (cached)" : "");
    doc.result_record = record;
    doc.result = result;
    doc.wanted.reset();
    auto waiters = std::move(doc.waiters);
    doc.waiters.clear();
    for (auto& w : waiters) w.done(w.generation == record->generation ? result : nullptr);
    hooks_.ready(record);
    return;
  }
  if (wanted) {
    // Cancelled by stop(), or superseded by an edit not yet analysed: that
    // edit's record will be submitted and computed then.
    spdlog::debug("resource usage of {} version {} dropped ({})", uri, record->document->version,
                  result->cancelled ? "cancelled" : "no longer current");
    doc.wanted.reset();
    fail_waiters(doc);
    return;
  }
  if (doc.wanted && !stopped_) start(uri, doc);
}

void OccupancyService::forget(const std::string& uri) {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return;
  it->second.stop.request_stop();
  fail_waiters(it->second);
  docs_.erase(it);
}

void OccupancyService::stop() {
  stopped_ = true;
  for (auto& [uri, doc] : docs_) {
    doc.stop.request_stop();
    doc.wanted.reset();
    fail_waiters(doc);
  }
}

OccupancyPtr OccupancyService::result(const AnalysisRecord& record) const {
  auto it = docs_.find(record.document->uri);
  if (it == docs_.end() || !it->second.result_record || it->second.result_record->generation != record.generation)
    return nullptr;
  return it->second.result;
}

bool OccupancyService::pending(const AnalysisRecord& record) const {
  auto it = docs_.find(record.document->uri);
  return it != docs_.end() && it->second.wanted && it->second.wanted->generation == record.generation;
}

OccupancyService::Latest OccupancyService::latest(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end() || !it->second.result) return {};
  return {it->second.result_record, it->second.result};
}

void OccupancyService::when_ready(const RecordPtr& record, std::function<void(OccupancyPtr)> done) {
  if (auto r = result(*record)) return done(r);
  if (!pending(*record)) return done(nullptr);
  docs_[record->document->uri].waiters.push_back({record->generation, std::move(done)});
}

void OccupancyService::fail_waiters(Doc& doc, std::uint64_t keep) {
  std::vector<Waiter> kept;
  auto waiters = std::move(doc.waiters);
  doc.waiters.clear();
  for (auto& w : waiters) {
    if (keep && w.generation == keep)
      kept.push_back(std::move(w));
    else
      w.done(nullptr);
  }
  for (auto& w : kept) doc.waiters.push_back(std::move(w));
}

}  // namespace warplens::server
