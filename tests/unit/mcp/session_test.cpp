// The MCP session over fake tools: lifecycle, tools/list, tools/call with
// structured results, the two kinds of error, progress and cancellation.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "mcp/argument_check.h"
#include "tests/unit/mcp/mcp_test_support.h"

using namespace warplens::mcp;
using namespace warplens::mcp::test;
using namespace std::chrono_literals;

namespace {

std::atomic<bool> g_slow_saw_stop{false};

std::vector<Tool> fake_tools() {
  Tool echo;
  echo.name = "echo";
  echo.title = "Echo";
  echo.description = "returns its text";
  echo.input_schema = {{"type", "object"},
                       {"properties", {{"text", {{"type", "string"}}}, {"times", {{"type", "integer"}, {"minimum", 1}}}}},
                       {"required", {"text"}},
                       {"additionalProperties", false}};
  echo.output_schema = {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}};
  echo.run = [](const json& a, const ToolContext&) {
    ToolResult r;
    r.structured = {{"text", a["text"]}};
    r.text = a["text"].get<std::string>();
    return r;
  };
  Tool fail;
  fail.name = "fail";
  fail.title = "Fail";
  fail.description = "always a tool error";
  fail.input_schema = {{"type", "object"}};
  fail.run = [](const json&, const ToolContext&) -> ToolResult { throw ToolError("no-gpu", "no usable CUDA GPU"); };
  Tool crash;
  crash.name = "crash";
  crash.title = "Crash";
  crash.description = "throws something unexpected";
  crash.input_schema = {{"type", "object"}};
  crash.run = [](const json&, const ToolContext&) -> ToolResult { throw std::runtime_error("boom"); };
  Tool slow;
  slow.name = "slow";
  slow.title = "Slow";
  slow.description = "reports progress until stopped";
  slow.input_schema = {{"type", "object"}};
  slow.run = [](const json&, const ToolContext& ctx) {
    for (int i = 1; i <= 2000 && !ctx.cancelled(); ++i) {
      ctx.progress(i, 2000, "step " + std::to_string(i));
      ctx.progress(i, 2000, "the same value again is dropped");
      std::this_thread::sleep_for(5ms);
    }
    g_slow_saw_stop = ctx.cancelled();
    ToolResult r;
    r.text = "done";
    return r;
  };
  return {echo, fail, crash, slow};
}

ServerInfo info() {
  ServerInfo i;
  i.version = "9.9";
  i.instructions = "use the tools";
  return i;
}

}  // namespace

TEST_CASE("mcp session: initialize negotiates the version and states the capabilities") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  SUBCASE("the supported version is echoed") {
    s.handle(request(1, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}}));
    json res = r.response(1)["result"];
    CHECK(res == json{{"protocolVersion", "2025-06-18"},
                      {"capabilities", {{"tools", {{"listChanged", false}}}}},
                      {"serverInfo",
                       {{"name", "warplens"},
                        {"title", "warplens: CUDA analysis, profiling and verified rewrites"},
                        {"version", "9.9"}}},
                      {"instructions", "use the tools"}});
    CHECK(s.initialized());
    // A second initialize is a protocol error.
    s.handle(request(2, "initialize", {{"protocolVersion", "2025-06-18"}}));
    CHECK(r.response(2)["error"]["code"] == -32600);
  }
  SUBCASE("an unknown version is answered with ours") {
    s.handle(request(1, "initialize", {{"protocolVersion", "2099-01-01"}, {"capabilities", json::object()}}));
    CHECK(r.response(1)["result"]["protocolVersion"] == "2025-06-18");
  }
  SUBCASE("initialize without a version is invalid params") {
    s.handle(request(1, "initialize", {{"capabilities", json::object()}}));
    CHECK(r.response(1)["error"]["code"] == -32602);
    CHECK_FALSE(s.initialized());
  }
}

TEST_CASE("mcp session: before initialize only ping is answered") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  s.handle(request(1, "tools/list"));
  json e = r.response(1);
  CHECK(e["error"]["code"] == -32600);
  CHECK(e["error"]["message"] == "`tools/list` before initialize: send initialize first");
  s.handle(request("p", "ping"));
  CHECK(r.response("p") == json{{"jsonrpc", "2.0"}, {"id", "p"}, {"result", json::object()}});
}

TEST_CASE("mcp session: malformed messages are protocol errors, never a crash") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  initialize(s, r);
  s.handle("{not json");
  s.handle("[1,2]");
  s.handle(request(3, "resources/list"));
  s.handle(request(4, "tools/call", {{"arguments", json::object()}}));
  s.handle(request(5, "tools/call", {{"name", "nope"}}));
  s.handle(request(6, "tools/call", {{"name", "echo"}, {"arguments", {{"text", 3}}}}));
  s.handle(request(7, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "a"}, {"color", "red"}}}}));
  s.handle(request(8, "tools/call", {{"name", "echo"}, {"arguments", json::object()}}));
  s.handle(request(9, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "a"}, {"times", 0}}}}));
  CHECK(r.response(3)["error"]["code"] == -32601);
  CHECK(r.response(4)["error"]["code"] == -32602);
  json unknown = r.response(5)["error"];
  CHECK(unknown["code"] == -32602);
  CHECK(unknown["message"] == "unknown tool `nope` (tools: echo, fail, crash, slow)");
  CHECK(r.response(6)["error"]["message"] == "echo: arguments.text: expected a string, got a number");
  CHECK(r.response(7)["error"]["message"] ==
        "echo: arguments: unknown argument `color` (this tool takes: text, times)");
  CHECK(r.response(8)["error"]["message"] == "echo: arguments: missing required `text`");
  CHECK(r.response(9)["error"]["message"] == "echo: arguments.times: must be at least 1");
  json parse_error = r.response(nullptr);
  CHECK(parse_error["error"]["code"] == -32700);
}

TEST_CASE("mcp session: tools/list gives every tool's schemas") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  initialize(s, r);
  s.handle(request(2, "tools/list"));
  json tools = r.response(2)["result"]["tools"];
  REQUIRE(tools.size() == 4);
  CHECK(tools[0] == json{{"name", "echo"},
                         {"title", "Echo"},
                         {"description", "returns its text"},
                         {"inputSchema", fake_tools()[0].input_schema},
                         {"outputSchema", fake_tools()[0].output_schema}});
}

TEST_CASE("mcp session: a call returns structured content and a text block; tool errors are results") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  initialize(s, r);
  s.handle(request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}));
  CHECK(r.response(2)["result"] ==
        json{{"content", {{{"type", "text"}, {"text", "hi"}}}}, {"structuredContent", {{"text", "hi"}}}});
  s.handle(request(3, "tools/call", {{"name", "fail"}}));
  CHECK(r.response(3)["result"] ==
        json{{"content", {{{"type", "text"}, {"text", "error (no-gpu): no usable CUDA GPU"}}}},
             {"isError", true},
             {"_meta", {{"warplens/error", {{"kind", "no-gpu"}, {"message", "no usable CUDA GPU"}}}}}});
  s.handle(request(4, "tools/call", {{"name", "crash"}}));
  CHECK(r.response(4)["result"] ==
        json{{"content", {{{"type", "text"}, {"text", "error (failed): internal error: boom"}}}},
             {"isError", true},
             {"_meta", {{"warplens/error", {{"kind", "failed"}, {"message", "internal error: boom"}}}}}});
}

TEST_CASE("mcp session: progress with the caller's token, and cancellation stops the tool without a response") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  initialize(s, r);
  g_slow_saw_stop = false;
  s.handle(request(7, "tools/call", {{"name", "slow"}, {"_meta", {{"progressToken", "tok"}}}}));
  for (int i = 0; i < 400 && r.notifications("notifications/progress").size() < 3; ++i) std::this_thread::sleep_for(5ms);
  // ping is answered while the call runs.
  s.handle(request(8, "ping"));
  CHECK(r.response(8, 2s).contains("result"));
  s.handle(notification("notifications/cancelled", {{"requestId", 7}, {"reason", "user pressed stop"}}));
  s.shutdown();
  CHECK(g_slow_saw_stop);
  CHECK(r.response(7, 300ms).is_null());
  auto progress = r.notifications("notifications/progress");
  REQUIRE(progress.size() >= 3);
  double last = 0;
  for (const auto& p : progress) {
    CHECK(p["params"]["progressToken"] == "tok");
    CHECK(p["params"]["total"] == 2000);
    CHECK(p["params"]["progress"].get<double>() > last);
    CHECK(p["params"]["message"].get<std::string>().rfind("step ", 0) == 0);
    last = p["params"]["progress"].get<double>();
  }
  CHECK(progress[0]["params"]["progress"] == 1);
}

TEST_CASE("mcp session: without a token no progress is sent; an unknown cancellation is ignored") {
  Recorder r;
  Session s(info(), fake_tools(), r.writer());
  initialize(s, r);
  s.handle(notification("notifications/cancelled", {{"requestId", 99}}));
  s.handle(notification("notifications/cancelled", {{"requestId", json::array()}}));
  s.handle(request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  CHECK(r.response(2).contains("result"));
  CHECK(r.notifications("notifications/progress").empty());
  s.handle(request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}, {"_meta", {{"progressToken", 1.5}}}}));
  CHECK(r.response(3)["error"]["code"] == -32602);
}

TEST_CASE("mcp argument check: the JSON Schema subset") {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"dims", {{"type", "array"}, {"items", {{"type", "integer"}, {"maximum", 1024}}}, {"maxItems", 3}}},
                   {"mode", {{"type", "string"}, {"enum", {"a", "b"}}}},
                   {"x", {{"type", "number"}}}}}};
  CHECK(check_arguments(schema, {{"dims", {1, 2, 3}}, {"mode", "a"}, {"x", 1}}) == "");
  CHECK(check_arguments(schema, {{"dims", {1, 2, 3, 4}}}) == "arguments.dims: takes at most 3 item(s)");
  CHECK(check_arguments(schema, {{"dims", {1, 2048}}}) == "arguments.dims[1]: must be at most 1024");
  CHECK(check_arguments(schema, {{"dims", {1.5}}}) == "arguments.dims[0]: expected an integer, got a number");
  CHECK(check_arguments(schema, {{"dims", {2.0}}}) == "");
  CHECK(check_arguments(schema, {{"mode", "c"}}) == "arguments.mode: expected one of [\"a\",\"b\"], got \"c\"");
  CHECK(check_arguments(schema, json::array()) == "arguments: expected an object, got an array");
  CHECK(check_schema_supported(schema) == "");
  CHECK(check_schema_supported({{"type", "object"}, {"oneOf", json::array()}}) == "schema: unsupported keyword `oneOf`");
}
