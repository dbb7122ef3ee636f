// The MCP session against a client that sends fields of the wrong type and
// against handlers that throw: every request is answered (invalid params or
// an internal error), every bad notification is ignored, and the session
// keeps serving. Each input here once ended `warplens mcp` (an uncaught
// nlohmann::json::type_error).
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "tests/unit/mcp/mcp_test_support.h"

using namespace warplens::mcp;
using namespace warplens::mcp::test;
using namespace std::chrono_literals;

namespace {

std::atomic<bool> g_stopped{false};

std::vector<Tool> tools() {
  Tool slow;
  slow.name = "slow";
  slow.title = "Slow";
  slow.description = "runs until stopped";
  slow.input_schema = {{"type", "object"}};
  slow.run = [](const json&, const ToolContext& ctx) {
    for (int i = 0; i < 2000 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(5ms);
    g_stopped = ctx.cancelled();
    ToolResult r;
    r.text = "done";
    return r;
  };
  Tool odd;
  odd.name = "odd";
  odd.title = "Odd";
  odd.description = "throws something that is not a std::exception";
  odd.input_schema = {{"type", "object"}};
  odd.run = [](const json&, const ToolContext&) -> ToolResult { throw 42; };
  return {slow, odd};
}

const json kVersion = "2025-06-18";

}  // namespace

TEST_CASE("mcp hostile client: a clientInfo that is not an object is invalid params, not a crash") {
  for (const json& client : {json(5), json::array(), json("name"), json(true), json{{"name", 5}},
                             json{{"name", json::array()}}, json{{"name", json::object()}}}) {
    CAPTURE(client.dump());
    Recorder r;
    Session s(ServerInfo{}, tools(), r.writer());
    s.handle(request(1, "initialize", {{"protocolVersion", kVersion}, {"capabilities", json::object()},
                                       {"clientInfo", client}}));
    json e = r.response(1, 2s);
    REQUIRE(e.contains("error"));
    CHECK(e["error"]["code"] == -32602);
    CHECK(e["error"]["message"].get<std::string>().find("clientInfo") != std::string::npos);
    CHECK_FALSE(s.initialized());
    // The session lives on: a well-formed initialize is answered.
    s.handle(request(2, "initialize", {{"protocolVersion", kVersion}, {"clientInfo", {{"name", "ok"}}}}));
    CHECK(r.response(2, 2s)["result"]["protocolVersion"] == kVersion);
  }
  // Absent, null or without a name: accepted (the name is only logged).
  for (const json& client : {json(nullptr), json::object(), json{{"version", "1"}}}) {
    Recorder r;
    Session s(ServerInfo{}, tools(), r.writer());
    s.handle(request(1, "initialize", {{"protocolVersion", kVersion}, {"clientInfo", client}}));
    CHECK(r.response(1, 2s).contains("result"));
  }
}

TEST_CASE("mcp hostile client: a cancellation with a reason that is not a string still cancels") {
  for (const json& reason : {json(5), json::object(), json::array({1}), json(false), json(1.5)}) {
    CAPTURE(reason.dump());
    Recorder r;
    Session s(ServerInfo{}, tools(), r.writer());
    initialize(s, r);
    g_stopped = false;
    s.handle(request("c", "tools/call", {{"name", "slow"}}));
    std::this_thread::sleep_for(20ms);
    s.handle(notification("notifications/cancelled", {{"requestId", "c"}, {"reason", reason}}));
    // No response to a cancelled call (the spec), and the tool saw its stop.
    CHECK(r.response("c", 500ms).is_null());
    s.shutdown();
    CHECK(g_stopped);
    // And the session still answers.
    s.handle(request("p", "ping"));
    CHECK(r.response("p", 2s).contains("result"));
  }
}

TEST_CASE("mcp hostile client: notifications with fields of every wrong type are ignored") {
  Recorder r;
  Session s(ServerInfo{}, tools(), r.writer());
  initialize(s, r);
  for (const json& params :
       {json::array(), json::array({1, 2}), json{{"requestId", json::object()}}, json{{"requestId", 1.5}},
        json{{"requestId", json::array()}, {"reason", 5}}, json{{"requestId", nullptr}}, json{{"reason", "x"}}})
    s.handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", params}}.dump());
  s.handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}, {"params", json::array({5})}}.dump());
  s.handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", json::array()}}.dump());
  std::size_t before = r.size();
  s.handle(request("p", "ping"));
  CHECK(r.response("p", 2s).contains("result"));
  CHECK(r.size() == before + 1);  // nothing was answered to the notifications
}

TEST_CASE("mcp hostile client: requests with params of the wrong type are invalid params") {
  Recorder r;
  Session s(ServerInfo{}, tools(), r.writer());
  s.handle(request(1, "initialize", json::array({kVersion})));
  s.handle(request(2, "initialize", {{"protocolVersion", 2025}}));
  CHECK(r.response(1, 2s)["error"]["code"] == -32602);
  CHECK(r.response(2, 2s)["error"]["code"] == -32602);
  initialize(s, r);
  s.handle(request(3, "tools/list", json::array()));
  s.handle(request(4, "tools/call", json::array({"slow"})));
  s.handle(request(5, "tools/call", {{"name", 5}}));
  s.handle(request(6, "tools/call", {{"name", "slow"}, {"arguments", 5}}));
  s.handle(request(7, "tools/call", {{"name", "slow"}, {"arguments", json::array()}}));
  s.handle(request(8, "tools/call", {{"name", "slow"}, {"_meta", {{"progressToken", json::object()}}}}));
  for (int id = 3; id <= 8; ++id) {
    CAPTURE(id);
    CHECK(r.response(id, 2s)["error"]["code"] == -32602);
  }
  // A _meta that is not an object is not read (it is optional metadata).
  s.handle(request(9, "tools/call", {{"name", "slow"}, {"_meta", 5}}));
  s.handle(notification("notifications/cancelled", {{"requestId", 9}}));
  s.handle(request("p", "ping"));
  CHECK(r.response("p", 2s).contains("result"));
}

TEST_CASE("mcp hostile client: an exception from a handler is an internal error reply, never a dead session") {
  // A writer that fails once, on the first answer to request 1: the failure
  // happens inside the handler, as a type error or bad_alloc would.
  Recorder r;
  auto record = r.writer();
  std::atomic<bool> failed{false};
  Session s(ServerInfo{}, tools(), [&](const json& m) {
    if (!failed && m.contains("id") && m["id"] == 1 && m.contains("result")) {
      failed = true;
      throw std::runtime_error("the writer failed");
    }
    record(m);
  });
  s.handle(request(1, "initialize", {{"protocolVersion", kVersion}}));
  json e = r.response(1, 2s);
  REQUIRE(e.contains("error"));
  CHECK(e["error"]["code"] == -32603);
  CHECK(e["error"]["message"].get<std::string>().find("the writer failed") != std::string::npos);
  s.handle(request(2, "ping"));
  CHECK(r.response(2, 2s).contains("result"));
  // A tool that throws something that is not a std::exception is a tool error.
  s.handle(request(3, "tools/call", {{"name", "odd"}}));
  json odd = r.response(3, 5s);
  REQUIRE(odd.contains("result"));
  CHECK(odd["result"]["isError"] == true);
}
