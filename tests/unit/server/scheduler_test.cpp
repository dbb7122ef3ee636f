#include <doctest/doctest.h>

#include <thread>

#include "fake_engine.h"
#include "server/scheduler.h"

using namespace warplens;
using namespace warplens::server;
using namespace warplens::formats;
using namespace std::chrono_literals;
using warplens::testing::FakeEngine;
using warplens::testing::run_for;
using warplens::testing::run_until;

namespace {

DocumentPtr make_doc(const std::string& uri, std::int64_t version, std::string text) {
  auto d = std::make_shared<Document>();
  d->uri = uri;
  d->path = "/w/" + uri.substr(uri.rfind('/') + 1);
  d->version = version;
  d->text = SourceText(std::move(text));
  return d;
}

struct Fixture {
  boost::asio::io_context io;
  FakeEngine engine;
  std::vector<RecordPtr> published;
  std::vector<std::string> failures;
  std::vector<std::size_t> activity;
  std::unique_ptr<Scheduler> scheduler;

  explicit Fixture(unsigned workers = 2, std::chrono::milliseconds debounce = 0ms) {
    Scheduler::Hooks hooks;
    hooks.published = [this](const RecordPtr& r) { published.push_back(r); };
    hooks.failed = [this](const DocumentPtr&, const std::string& what) { failures.push_back(what); };
    hooks.activity = [this](std::size_t busy) { activity.push_back(busy); };
    scheduler = std::make_unique<Scheduler>(
        io, [this](const SourceFile& f, const AnalysisOptions& o, std::stop_token s) { return engine(f, o, s); },
        workers, hooks);
    scheduler->set_debounce(debounce);
  }
  ~Fixture() {
    engine.release();
    scheduler.reset();
  }
};

}  // namespace

TEST_CASE("with no debounce an update is analysed and published once") {
  Fixture fx;
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "v1"), {});
  run_until(fx.io, [&] { return fx.published.size() == 1; }, "first result");
  CHECK(fx.published[0]->document->version == 1);
  CHECK(fx.published[0]->result.parsed);
  CHECK(fx.scheduler->current("file:///w/a.cu") == fx.published[0]);
  CHECK(fx.scheduler->busy() == 0);
  CHECK(fx.activity.back() == 0);
}

TEST_CASE("a burst of edits within the debounce collapses into one analysis of the last text") {
  Fixture fx(2, 1000ms);  // long enough that a loaded machine cannot outrun it
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "v1"), {});
  fx.scheduler->update(make_doc("file:///w/a.cu", 2, "v2"), {});
  fx.scheduler->update(make_doc("file:///w/a.cu", 3, "v3"), {});
  run_for(fx.io, 50ms);
  CHECK(fx.engine.calls() == 0);  // still debouncing
  run_until(fx.io, [&] { return !fx.published.empty(); }, "debounced result");
  run_for(fx.io, 50ms);
  CHECK(fx.engine.texts() == std::vector<std::string>{"v3"});
  REQUIRE(fx.published.size() == 1);
  CHECK(fx.published[0]->document->version == 3);
}

TEST_CASE("a result that finishes after a newer edit is never published") {
  Fixture fx;
  fx.engine.hold();
  fx.engine.ignore_stop(true);  // like a parse that cannot be interrupted
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "old"), {});
  run_until(fx.io, [&] { return fx.engine.calls() == 1; }, "first analysis started");
  fx.scheduler->update(make_doc("file:///w/a.cu", 2, "new"), {});
  fx.engine.release();
  run_until(fx.io, [&] { return !fx.published.empty(); }, "result of version 2");
  run_for(fx.io, 30ms);
  REQUIRE(fx.published.size() == 1);
  CHECK(fx.published[0]->document->version == 2);
  CHECK(fx.engine.texts() == std::vector<std::string>{"old", "new"});
}

TEST_CASE("a newer edit cancels the running analysis through its stop_token") {
  Fixture fx;
  fx.engine.hold();
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "old"), {});
  run_until(fx.io, [&] { return fx.engine.calls() == 1; }, "first analysis started");
  // The held analysis only returns when its stop is requested.
  fx.scheduler->update(make_doc("file:///w/a.cu", 2, "new"), {});
  run_until(fx.io, [&] { return fx.engine.calls() == 2; }, "second analysis started after the first stopped");
  fx.engine.release();
  run_until(fx.io, [&] { return !fx.published.empty(); }, "result of version 2");
  CHECK(fx.published.back()->document->version == 2);
  CHECK(fx.failures.empty());
}

TEST_CASE("readers wait for the current version and skip the debounce") {
  Fixture fx(2, 10s);
  fx.scheduler->update(make_doc("file:///w/a.cu", 4, "text"), {});
  RecordPtr got;
  std::optional<WaitError> error;
  bool called = false;
  fx.scheduler->when_ready("file:///w/a.cu", 4, [&](RecordPtr r, std::optional<WaitError> e) {
    got = r;
    error = e;
    called = true;
  });
  run_until(fx.io, [&] { return called; }, "reader served well before the 10 s debounce", 5s);
  REQUIRE(got);
  CHECK_FALSE(error);
  CHECK(got->document->version == 4);

  // Already published: served at once.
  called = false;
  fx.scheduler->when_ready("file:///w/a.cu", 4, [&](RecordPtr r, std::optional<WaitError>) {
    called = r != nullptr;
  });
  CHECK(called);
}

TEST_CASE("readers of a superseded or closed version get an error") {
  Fixture fx;
  fx.engine.hold();
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "one"), {});
  std::optional<WaitError> first, second, closed;
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr, std::optional<WaitError> e) { first = e; });
  fx.scheduler->update(make_doc("file:///w/a.cu", 2, "two"), {});
  CHECK(first == WaitError::ContentModified);
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr, std::optional<WaitError> e) { second = e; });
  CHECK(second == WaitError::ContentModified);
  fx.scheduler->when_ready("file:///w/a.cu", 2, [&](RecordPtr, std::optional<WaitError> e) { closed = e; });
  fx.scheduler->remove("file:///w/a.cu");
  CHECK(closed == WaitError::Closed);
  fx.engine.release();
  run_for(fx.io, 50ms);
  CHECK(fx.published.empty());  // nothing published for a closed document
  std::optional<WaitError> unknown;
  fx.scheduler->when_ready("file:///w/none.cu", 1, [&](RecordPtr, std::optional<WaitError> e) { unknown = e; });
  CHECK(unknown == WaitError::Closed);
}

TEST_CASE("an engine that throws fails the readers, reports, and the next edit works") {
  Fixture fx;
  fx.engine.throw_on("BOOM");
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "BOOM"), {});
  std::optional<WaitError> error;
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr, std::optional<WaitError> e) { error = e; });
  run_until(fx.io, [&] { return !fx.failures.empty(); }, "failure reported");
  CHECK(fx.failures[0] == "fake engine failure");
  CHECK(error == WaitError::Failed);
  std::optional<WaitError> again;
  bool asked = false;
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr, std::optional<WaitError> e) {
    again = e;
    asked = true;
  });
  CHECK(asked);
  CHECK(again == WaitError::Failed);  // no retry until the text changes
  fx.scheduler->update(make_doc("file:///w/a.cu", 2, "fine"), {});
  run_until(fx.io, [&] { return !fx.published.empty(); }, "result after the failure");
  CHECK(fx.published[0]->document->version == 2);
}

TEST_CASE("new options for the same version re-analyse; the old result is stale") {
  Fixture fx;
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "t"), {});
  run_until(fx.io, [&] { return fx.published.size() == 1; }, "first result");
  AnalysisOptions sm80;
  sm80.arch = "sm_80";
  auto doc = fx.scheduler->latest("file:///w/a.cu")->document;
  fx.scheduler->update(doc, sm80, /*immediately=*/true);
  CHECK_FALSE(fx.scheduler->current("file:///w/a.cu"));  // the published one is for the old options
  CHECK(fx.scheduler->latest("file:///w/a.cu"));
  run_until(fx.io, [&] { return fx.published.size() == 2; }, "result with new options");
  CHECK(fx.engine.options().back().arch == "sm_80");
  CHECK(fx.published[1]->generation > fx.published[0]->generation);
}

TEST_CASE("the worker pool bounds concurrency across documents") {
  Fixture fx(1);
  for (int i = 0; i < 4; ++i) fx.scheduler->update(make_doc("file:///w/d" + std::to_string(i) + ".cu", 1, "x"), {});
  run_until(fx.io, [&] { return fx.published.size() == 4; }, "four documents analysed");
  CHECK(fx.engine.max_concurrent() == 1);
}

TEST_CASE("shutdown fails readers and reports whether analyses stopped in time") {
  Fixture fx;
  fx.engine.hold();
  fx.engine.ignore_stop(true);
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "x"), {});
  run_until(fx.io, [&] { return fx.engine.calls() == 1; }, "analysis started");
  std::optional<WaitError> error;
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr, std::optional<WaitError> e) { error = e; });
  CHECK_FALSE(fx.scheduler->shutdown(50ms));  // the engine ignores stop
  CHECK(error == WaitError::ShuttingDown);
  fx.engine.release();
  CHECK(fx.scheduler->shutdown(5s));
}

// A reader runs on the io thread when the analysis finishes, outside any
// request's dispatch: one that threw used to leave io.run() (the server's
// loop) and skip the readers after it, whose requests were never answered.
TEST_CASE("a reader that throws does not stop the loop or the readers after it") {
  Fixture fx;
  fx.engine.hold();
  fx.scheduler->update(make_doc("file:///w/a.cu", 1, "text"), {});
  bool second = false;
  fx.scheduler->when_ready("file:///w/a.cu", 1,
                           [](RecordPtr, std::optional<WaitError>) { throw std::runtime_error("reader failed"); });
  fx.scheduler->when_ready("file:///w/a.cu", 1, [&](RecordPtr r, std::optional<WaitError>) { second = r != nullptr; });
  fx.engine.release();
  bool ok = false;
  try {
    ok = run_until(fx.io, [&] { return second; }, "the second reader");
  } catch (const std::exception& e) {
    FAIL_CHECK("an exception left the io loop: " << std::string(e.what()));
  }
  CHECK(ok);
  CHECK(second);
  // A throwing reader of a closed document is isolated too.
  fx.engine.hold();
  fx.scheduler->update(make_doc("file:///w/b.cu", 1, "b"), {});
  fx.scheduler->when_ready("file:///w/b.cu", 1,
                           [](RecordPtr, std::optional<WaitError>) { throw std::runtime_error("reader failed"); });
  CHECK_NOTHROW(fx.scheduler->remove("file:///w/b.cu"));
  fx.engine.release();
}
