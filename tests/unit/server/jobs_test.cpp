// Long jobs: the runner (one at a time, queue, cancellation, failures) and,
// through the server, work-done progress and every way to cancel a job.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "server/job_runner.h"
#include "server/work_done_progress.h"
#include "server_harness.h"

using namespace warplens;
using namespace warplens::server;
using namespace warplens::testing;
using namespace std::chrono_literals;

namespace {

struct RecordingSink : ProgressSink {
  std::mutex mutex;
  std::vector<std::string> events;
  void begin(const std::string& title, const std::string&) override { add("begin " + title); }
  void report(const std::string& message, std::optional<int>) override { add("report " + message); }
  void end(const std::string& message) override { add("end " + message); }
  void add(std::string e) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return events;
  }
};

struct Outcomes {
  std::mutex mutex;
  std::map<std::uint64_t, JobOutcome> by_id;
  std::function<void(JobOutcome)> for_job(std::shared_ptr<std::uint64_t> id) {
    return [this, id](JobOutcome o) {
      std::lock_guard lock(mutex);
      by_id[*id] = std::move(o);
    };
  }
  std::optional<JobOutcome> get(std::uint64_t id) {
    std::lock_guard lock(mutex);
    auto it = by_id.find(id);
    return it == by_id.end() ? std::nullopt : std::optional<JobOutcome>(it->second);
  }
};

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = 10s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

// A job that runs until cancelled, reporting once.
JobFunction until_cancelled(std::atomic<bool>& started) {
  return [&started](JobContext& ctx) -> nlohmann::json {
    ctx.report("working", 10);
    started = true;
    while (!ctx.stop.stop_requested()) std::this_thread::sleep_for(1ms);
    return nullptr;
  };
}

}  // namespace

TEST_CASE("jobs run one at a time, in order; a queued job can be cancelled before it starts") {
  JobRunner runner;
  Outcomes outcomes;
  std::atomic<bool> started{false};
  auto first = std::make_shared<std::uint64_t>(0), second = std::make_shared<std::uint64_t>(0);
  auto sink1 = std::make_shared<RecordingSink>(), sink2 = std::make_shared<RecordingSink>();
  *first = runner.submit("first", until_cancelled(started), sink1, outcomes.for_job(first));
  *second = runner.submit("second", [](JobContext&) { return nlohmann::json(1); }, sink2, outcomes.for_job(second));
  REQUIRE(eventually([&] { return started.load(); }));
  auto jobs = runner.jobs();
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].running);
  CHECK_FALSE(jobs[1].running);
  CHECK(runner.cancel(*second));
  CHECK(outcomes.get(*second)->status == JobOutcome::Status::Cancelled);
  CHECK(sink2->get() == std::vector<std::string>{"begin second", "end cancelled"});
  CHECK(runner.cancel(*first));
  REQUIRE(eventually([&] { return outcomes.get(*first).has_value(); }));
  CHECK(outcomes.get(*first)->status == JobOutcome::Status::Cancelled);
  CHECK(sink1->get() == std::vector<std::string>{"begin first", "report working", "end cancelled"});
  CHECK_FALSE(runner.cancel(12345));
}

TEST_CASE("a job's result, or its failure, is its outcome; the runner carries on") {
  JobRunner runner;
  Outcomes outcomes;
  auto bad = std::make_shared<std::uint64_t>(0), good = std::make_shared<std::uint64_t>(0);
  *bad = runner.submit("bad", [](JobContext&) -> nlohmann::json { throw std::runtime_error("no GPU"); }, nullptr,
                       outcomes.for_job(bad));
  *good = runner.submit("good", [](JobContext&) { return nlohmann::json{{"ok", true}}; }, nullptr,
                        outcomes.for_job(good));
  REQUIRE(eventually([&] { return outcomes.get(*good).has_value(); }));
  CHECK(outcomes.get(*bad)->status == JobOutcome::Status::Failed);
  CHECK(outcomes.get(*bad)->error == "no GPU");
  CHECK(outcomes.get(*good)->result["ok"] == true);
}

TEST_CASE("a job's last step for the io thread travels in its outcome; the runner does not wait for it") {
  JobRunner runner;
  Outcomes outcomes;
  std::atomic<bool> finish_ran{false};
  auto with_finish = std::make_shared<std::uint64_t>(0), next = std::make_shared<std::uint64_t>(0);
  *with_finish = runner.submit("finish", [&](JobContext&) {
    return JobResult::finish_on_io([&](JobCompletion done) {
      finish_ran = true;
      done.result(nlohmann::json{{"attached", true}});
    });
  }, nullptr, outcomes.for_job(with_finish));
  *next = runner.submit("next", [](JobContext&) { return nlohmann::json(2); }, nullptr, outcomes.for_job(next));
  // The second job ran although nobody has run the first one's last step:
  // no job thread blocks on the io thread.
  REQUIRE(eventually([&] { return outcomes.get(*next).has_value(); }));
  CHECK_FALSE(finish_ran.load());
  auto o = outcomes.get(*with_finish);
  REQUIRE(o.has_value());
  CHECK(o->status == JobOutcome::Status::Succeeded);
  REQUIRE(o->finish);
  CHECK_FALSE(o->stop.stop_requested());
  nlohmann::json answer;
  o->finish(JobCompletion{[&](nlohmann::json v) { answer = std::move(v); }, [](std::exception_ptr) {}});
  CHECK(finish_ran.load());
  CHECK(answer["attached"] == true);
}

TEST_CASE("shutdown cancels the running job and reports whether it stopped") {
  JobRunner runner;
  std::atomic<bool> started{false};
  Outcomes outcomes;
  auto id = std::make_shared<std::uint64_t>(0);
  *id = runner.submit("long", until_cancelled(started), nullptr, outcomes.for_job(id));
  REQUIRE(eventually([&] { return started.load(); }));
  CHECK(runner.shutdown(5s));
  CHECK(outcomes.get(*id)->status == JobOutcome::Status::Cancelled);
  std::optional<JobOutcome> late;  // answered at once, inside submit()
  runner.submit("late", [](JobContext&) { return nlohmann::json(); }, nullptr, [&](JobOutcome o) { late = o; });
  REQUIRE(late);
  CHECK(late->status == JobOutcome::Status::Cancelled);
}

namespace {

server::ServerOptions with_test_commands() {
  auto o = fast_options();
  o.test_commands = true;
  return o;
}

json sleep_command(int ms, int steps = 10) {
  return {{"command", "warplens.debug.sleep"}, {"arguments", {{{"ms", ms}, {"steps", steps}}}}};
}

std::vector<std::string> progress_kinds(ServerHarness& h, const json& token) {
  std::vector<std::string> kinds;
  for (const auto& p : h.notifications("$/progress"))
    if (p["token"] == token) kinds.push_back(p["value"]["kind"]);
  return kinds;
}

}  // namespace

TEST_CASE("warplens.debug.sleep with arguments of the wrong type is invalid params") {
  ServerHarness h(with_test_commands());
  for (const json& ms : {json("x"), json(1.5), json(-1), json::array(), json(1e12)}) {
    CAPTURE(ms.dump());
    json r = h.request("workspace/executeCommand",
                       {{"command", "warplens.debug.sleep"}, {"arguments", {{{"ms", ms}, {"steps", 1}}}}});
    CHECK(r["error"]["code"] == -32602);
  }
}

TEST_CASE("a job reports progress under a server-created token: begin, reports, end") {
  ServerHarness h(with_test_commands());
  json r = h.request("workspace/executeCommand", sleep_command(40, 4));
  CHECK(r["result"]["slept_ms"] == 40);
  REQUIRE(!h.server_requests.empty());
  CHECK(h.server_requests[0]["method"] == "window/workDoneProgress/create");
  json token = h.server_requests[0]["params"]["token"];
  h.wait_notification("$/progress", [&](const json& p) { return p["token"] == token && p["value"]["kind"] == "end"; });
  auto kinds = progress_kinds(h, token);
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds.front() == "begin");
  CHECK(kinds.back() == "end");
  for (std::size_t i = 1; i + 1 < kinds.size(); ++i) CHECK(kinds[i] == "report");
  CHECK(h.notifications("$/progress")[0]["value"]["cancellable"] == true);
}

TEST_CASE("a job uses the client's workDoneToken when it sends one") {
  ServerHarness h(with_test_commands());
  json params = sleep_command(10, 2);
  params["workDoneToken"] = "client-token";
  CHECK(h.request("workspace/executeCommand", params)["result"]["slept_ms"] == 10);
  CHECK(h.server_requests.empty());  // no create needed
  h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "end"; });
  CHECK(progress_kinds(h, "client-token").front() == "begin");
}

TEST_CASE("no progress for clients that do not support it") {
  json caps = default_client_capabilities();
  caps["window"]["workDoneProgress"] = false;
  ServerHarness plain(with_test_commands(), true, caps);
  CHECK(plain.request("workspace/executeCommand", sleep_command(10, 2))["result"]["slept_ms"] == 10);
  CHECK(plain.notifications("$/progress").empty());

}

TEST_CASE("cancelling a job: $/cancelRequest, window/workDoneProgress/cancel, warplens.cancelJob") {
  ServerHarness h(with_test_commands());
  SUBCASE("$/cancelRequest on the executeCommand request") {
    int id = h.send_request("workspace/executeCommand", sleep_command(60000, 60000));
    h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
    h.notify("$/cancelRequest", {{"id", id}});
    CHECK(h.wait_response(id)["error"]["code"] == -32800);
    h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "end"; });
  }
  SUBCASE("window/workDoneProgress/cancel on the token") {
    int id = h.send_request("workspace/executeCommand", sleep_command(60000, 60000));
    json begin = h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
    h.notify("window/workDoneProgress/cancel", {{"token", begin["params"]["token"]}});
    CHECK(h.wait_response(id)["error"]["code"] == -32800);
  }
  SUBCASE("warplens.cancelJob, after listing the jobs") {
    int id = h.send_request("workspace/executeCommand", sleep_command(60000, 60000));
    h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
    json jobs = h.request("workspace/executeCommand", {{"command", "warplens.listJobs"}})["result"];
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0]["title"] == "warplens.debug.sleep");
    json cancelled = h.request("workspace/executeCommand",
                               {{"command", "warplens.cancelJob"}, {"arguments", {{{"id", jobs[0]["id"]}}}}});
    CHECK(cancelled["result"]["cancelled"] == json::array({jobs[0]["id"]}));
    CHECK(h.wait_response(id)["error"]["code"] == -32800);
    json missing = h.request("workspace/executeCommand",
                             {{"command", "warplens.cancelJob"}, {"arguments", {{{"id", 999}}}}});
    CHECK(missing["error"]["code"] == -32803);
  }
}

TEST_CASE("unknown commands and test commands without the flag are refused") {
  ServerHarness h;
  CHECK(h.request("workspace/executeCommand", sleep_command(1))["error"]["code"] == -32602);
  CHECK(h.request("workspace/executeCommand", {{"command", "warplens.cancelJob"}, {"arguments", {1}}})["error"]["code"] ==
        -32602);
}

TEST_CASE("work-done progress held while the client creates the token; dropped when it refuses") {
  MemoryOutbox out;
  ClientConnection client(out);
  auto p = WorkDoneProgress::create(client, protocol::ProgressToken{std::string("t")});
  p->begin("Profiling", "starting");
  p->report("half", 50);
  p->report("most", 90);
  auto sent = out.snapshot();
  REQUIRE(sent.size() == 1);  // only the create request so far
  CHECK(sent[0]["method"] == "window/workDoneProgress/create");
  client.deliver(protocol::Response{sent[0]["id"].get<std::int64_t>(), nullptr, std::nullopt});
  p->end("done");
  p->report("too late", 100);
  sent = out.snapshot();
  REQUIRE(sent.size() == 4);
  CHECK(sent[1]["params"]["value"]["kind"] == "begin");
  CHECK(sent[2]["params"]["value"]["message"] == "most");  // the latest held report
  CHECK(sent[3]["params"]["value"]["kind"] == "end");

  MemoryOutbox out2;
  ClientConnection client2(out2);
  auto refused = WorkDoneProgress::create(client2, protocol::ProgressToken{std::string("u")});
  refused->begin("x", "");
  client2.deliver(protocol::Response{out2.snapshot()[0]["id"].get<std::int64_t>(), nullptr,
                                     protocol::ResponseError{protocol::ErrorCode::RequestFailed, "no", {}}});
  refused->report("r", 1);
  refused->end("e");
  CHECK(out2.snapshot().size() == 1);
}
