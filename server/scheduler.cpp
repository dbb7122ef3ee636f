#include "server/scheduler.h"

#include <condition_variable>
#include <mutex>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

namespace warplens::server {

namespace asio = boost::asio;

namespace {

// Waiters and hooks run on the io thread from an analysis's completion, not
// inside a request's dispatch: an exception from one would leave io.run()
// and end the server, and skip the waiters after it (their requests would
// never be answered). Each is isolated; the features answer their own
// failures (request_helpers.cpp), this is the net under them.
template <class F>
void guarded(const char* what, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    spdlog::error("internal error in {}: {}", what, e.what());
  } catch (...) {
    spdlog::error("internal error in {} (unknown exception)", what);
  }
}

}  // namespace

const char* to_string(WaitError e) {
  switch (e) {
    case WaitError::ContentModified: return "the document changed";
    case WaitError::Closed: return "the document is not open";
    case WaitError::Failed: return "the analysis failed";
    case WaitError::ShuttingDown: return "the server is shutting down";
  }
  return "unknown";
}

struct Scheduler::State : std::enable_shared_from_this<State> {
  struct Waiter {
    std::int64_t version;
    ReadyCallback ready;
  };

  struct Doc {
    DocumentPtr document;
    AnalysisOptions options;
    std::uint64_t input = 0;           // id of the current (document, options)
    bool dirty = false;                // current input not started yet
    std::unique_ptr<asio::steady_timer> timer;
    bool timer_pending = false;        // debounce timer armed for `input`
    bool running = false;
    std::uint64_t running_input = 0;
    std::stop_source stop;             // of the running analysis
    RecordPtr last;
    std::uint64_t last_input = 0;      // input `last` was computed from
    std::vector<Waiter> waiters;
  };

  State(asio::io_context& io, AnalyzeFn analyze, Hooks hooks, asio::thread_pool& pool)
      : io(io), analyze(std::move(analyze)), hooks(std::move(hooks)), pool(pool) {}

  asio::io_context& io;
  AnalyzeFn analyze;
  Hooks hooks;
  asio::thread_pool& pool;
  std::chrono::milliseconds debounce{300};
  bool closed = false;
  std::uint64_t next_input = 0;
  std::uint64_t next_generation = 0;
  std::map<std::string, Doc> docs;
  std::size_t reported_busy = 0;

  // Analyses executing on the pool, for shutdown().
  std::mutex running_mutex;
  std::condition_variable running_cv;
  int running_count = 0;

  std::size_t busy() const {
    std::size_t n = 0;
    for (const auto& [uri, d] : docs) n += (d.running || d.dirty || d.timer_pending) ? 1 : 0;
    return n;
  }

  void report_activity() {
    std::size_t now = busy();
    if (now == reported_busy) return;
    reported_busy = now;
    if (hooks.activity) hooks.activity(now);
  }

  // Calls the waiters of `d` that `pred` selects with (record, error).
  template <class Pred>
  void settle_waiters(Doc& d, Pred pred, const RecordPtr& record, std::optional<WaitError> error) {
    std::vector<Waiter> ready;
    std::vector<Waiter> keep;
    for (auto& w : d.waiters) (pred(w) ? ready : keep).push_back(std::move(w));
    d.waiters = std::move(keep);
    for (auto& w : ready) guarded("a reader of an analysis", [&] { w.ready(record, error); });
  }

  void arm_debounce(const std::string& uri, Doc& d) {
    d.timer_pending = true;
    d.timer->expires_after(debounce);
    d.timer->async_wait([weak = weak_from_this(), uri, input = d.input](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (!self || ec || self->closed) return;
      auto it = self->docs.find(uri);
      if (it == self->docs.end() || it->second.input != input) return;  // re-armed since
      it->second.timer_pending = false;
      self->maybe_start(uri, it->second);
      self->report_activity();
    });
  }

  void cancel_debounce(Doc& d) {
    if (!d.timer_pending) return;
    d.timer_pending = false;
    d.timer->cancel();
  }

  void maybe_start(const std::string& uri, Doc& d) {
    if (closed || d.running || !d.dirty || d.timer_pending) return;
    d.dirty = false;
    d.running = true;
    d.running_input = d.input;
    d.stop = std::stop_source();
    asio::post(pool, [self = shared_from_this(), uri, doc = d.document, options = d.options, input = d.input,
                      token = d.stop.get_token()]() mutable {
      {
        std::lock_guard lock(self->running_mutex);
        ++self->running_count;
      }
      AnalysisResult result;
      std::string error;
      if (!token.stop_requested()) {
        try {
          result = self->analyze(SourceFile{doc->path, doc->text.text()}, options, token);
        } catch (const std::exception& e) {
          error = e.what();
          if (error.empty()) error = "exception without a message";
        } catch (...) {
          error = "unknown exception";
        }
      } else {
        result.cancelled = true;
      }
      asio::post(self->io, [self, uri, doc, input, result = std::move(result), error = std::move(error)]() mutable {
        self->finished(uri, doc, input, std::move(result), error);
      });
      {
        std::lock_guard lock(self->running_mutex);
        --self->running_count;
      }
      self->running_cv.notify_all();
    });
  }

  void finished(const std::string& uri, const DocumentPtr& doc, std::uint64_t input, AnalysisResult result,
                const std::string& error) {
    if (closed) return;
    auto it = docs.find(uri);
    if (it == docs.end() || !it->second.running || it->second.running_input != input) return;
    Doc& d = it->second;
    d.running = false;
    bool current = input == d.input;
    if (!current) {
      spdlog::debug("dropping stale analysis of {} version {}", uri, doc->version);
    } else if (!error.empty() || result.cancelled) {
      std::string what = error.empty() ? "the analysis stopped before finishing" : error;
      spdlog::error("analysis of {} version {} failed: {}", uri, doc->version, what);
      if (hooks.failed) guarded("reporting a failed analysis", [&] { hooks.failed(doc, what); });
      settle_waiters(d, [](const Waiter&) { return true; }, nullptr, WaitError::Failed);
    } else {
      auto record = std::make_shared<AnalysisRecord>(AnalysisRecord{doc, std::move(result), ++next_generation});
      d.last = record;
      d.last_input = input;
      if (hooks.published) guarded("publishing an analysis", [&] { hooks.published(record); });
      // A hook may have closed the document: look it up again.
      it = docs.find(uri);
      if (it == docs.end()) return report_activity();
      settle_waiters(it->second, [&](const Waiter& w) { return w.version == doc->version; }, record, std::nullopt);
    }
    it = docs.find(uri);
    if (it != docs.end()) maybe_start(uri, it->second);
    report_activity();
  }
};

Scheduler::Scheduler(asio::io_context& io, AnalyzeFn analyze, unsigned workers, Hooks hooks)
    : pool_(workers == 0 ? 1 : workers) {
  state_ = std::make_shared<State>(io, std::move(analyze), std::move(hooks), pool_);
}

Scheduler::~Scheduler() {
  // Silent: the owner of the hooks and waiters may be going away too.
  auto& s = *state_;
  s.closed = true;
  for (auto& [uri, d] : s.docs) d.stop.request_stop();
  s.docs.clear();
  pool_.stop();
  pool_.join();
}

void Scheduler::set_debounce(std::chrono::milliseconds debounce) { state_->debounce = debounce; }
std::chrono::milliseconds Scheduler::debounce() const { return state_->debounce; }

void Scheduler::update(DocumentPtr document, AnalysisOptions options, bool immediately) {
  auto& s = *state_;
  if (s.closed) return;
  const std::string uri = document->uri;
  auto& d = s.docs[uri];
  if (!d.timer) d.timer = std::make_unique<asio::steady_timer>(s.io);
  d.document = std::move(document);
  d.options = std::move(options);
  d.input = ++s.next_input;
  d.dirty = true;
  if (d.running) d.stop.request_stop();  // its result would be stale anyway
  const std::int64_t version = d.document->version;
  s.settle_waiters(d, [&](const State::Waiter& w) { return w.version != version; }, nullptr,
                   WaitError::ContentModified);
  if (immediately || s.debounce.count() <= 0) {
    s.cancel_debounce(d);
    s.maybe_start(uri, d);
  } else {
    s.arm_debounce(uri, d);
  }
  s.report_activity();
}

void Scheduler::remove(const std::string& uri) {
  auto& s = *state_;
  auto it = s.docs.find(uri);
  if (it == s.docs.end()) return;
  auto& d = it->second;
  d.stop.request_stop();
  s.cancel_debounce(d);
  auto waiters = std::move(d.waiters);
  s.docs.erase(it);
  for (auto& w : waiters) guarded("a reader of a closed document", [&] { w.ready(nullptr, WaitError::Closed); });
  s.report_activity();
}

RecordPtr Scheduler::latest(const std::string& uri) const {
  auto it = state_->docs.find(uri);
  return it == state_->docs.end() ? nullptr : it->second.last;
}

RecordPtr Scheduler::current(const std::string& uri) const {
  auto it = state_->docs.find(uri);
  if (it == state_->docs.end()) return nullptr;
  const auto& d = it->second;
  return d.last && d.last_input == d.input ? d.last : nullptr;
}

void Scheduler::when_ready(const std::string& uri, std::int64_t version, ReadyCallback ready) {
  auto& s = *state_;
  if (s.closed) return ready(nullptr, WaitError::ShuttingDown);
  auto it = s.docs.find(uri);
  if (it == s.docs.end()) return ready(nullptr, WaitError::Closed);
  auto& d = it->second;
  if (d.document->version != version) return ready(nullptr, WaitError::ContentModified);
  if (d.last && d.last_input == d.input) return ready(d.last, std::nullopt);
  if (!d.dirty && !d.running && !d.timer_pending) return ready(nullptr, WaitError::Failed);
  d.waiters.push_back({version, std::move(ready)});
  s.cancel_debounce(d);  // a reader is waiting: analyse now
  s.maybe_start(uri, d);
  s.report_activity();
}

std::size_t Scheduler::busy() const { return state_->busy(); }

bool Scheduler::shutdown(std::chrono::milliseconds timeout) {
  auto& s = *state_;
  if (!s.closed) {
    s.closed = true;
    std::vector<State::Waiter> waiters;
    for (auto& [uri, d] : s.docs) {
      d.stop.request_stop();
      s.cancel_debounce(d);
      for (auto& w : d.waiters) waiters.push_back(std::move(w));
    }
    s.docs.clear();
    for (auto& w : waiters) guarded("a reader at shutdown", [&] { w.ready(nullptr, WaitError::ShuttingDown); });
    pool_.stop();  // queued analyses never start
  }
  std::unique_lock lock(s.running_mutex);
  return s.running_cv.wait_for(lock, timeout, [&] { return s.running_count == 0; });
}

}  // namespace warplens::server
