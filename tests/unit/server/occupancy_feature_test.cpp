// Resource usage and occupancy in the server (server/occupancy_feature.cpp,
// server/occupancy_service.cpp), in-process with the fake engine and a fake
// resource pipeline fed with ptxas' recorded output: publication after the
// static diagnostics, versioning (a result for an old version is never
// published), cancellation, the code lens, the hover table and the
// __launch_bounds__ quick fix through codeAction/resolve.
#include <doctest/doctest.h>

#include "analysis/occupancy.h"
#include "fake_occupancy.h"
#include "server_harness.h"
#include "tests/support/analysis_requirements.h"
#include "tests/support/annotations.h"

using namespace warplens;
using namespace warplens::testing;
using warplens::test::needs;

namespace {

const char* kSnippet = R"cu(#define TILE 32
$t^__global__ void $t_name[[transpose]](const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
}
__global__ void $h_lb[[__launch_bounds__(256, 2)]] $h_name[[heavy]](const float* in, float* out, int n) {}
void host(const float* in, float* out, int n) {
  $l1[[transpose<<<grid, dim3(32, 8)>>>(in, out, n)]];
  $l2[[heavy<<<grid, 256>>>(in, out, n)]];
}
)cu";

const std::string kUri = "file:///src/kernels.cu";

Function kernel(const Annotations& a, const std::string& name, const std::string& prefix) {
  Function f;
  f.name = name;
  f.kind = FunctionKind::Kernel;
  f.signature = "void " + name + "(const float *, float *, int)";
  f.key = name + "(const float *, float *, int)";
  for (const char* type : {"const float *", "float *", "int"}) {
    Parameter p;
    p.name = "p";
    p.type = type;
    f.params.push_back(p);
  }
  f.name_range = a.range(prefix + "_name");
  f.range = f.name_range;
  if (prefix == "t") f.declaration_start = {a.point("t"), a.point("t")};
  return f;
}

LaunchSite launch(const Function& k, std::array<std::int64_t, 3> block, std::string spelling, Range range) {
  LaunchSite l;
  l.kernel = k.name;
  l.kernel_key = k.key;
  l.caller = "host";
  l.range = range;
  l.grid = {"grid", std::nullopt, {}};
  l.block = {std::move(spelling), block, {}};
  return l;
}

KernelModel snippet_model(const Annotations& a) {
  KernelModel m;
  m.functions.push_back(kernel(a, "transpose", "t"));
  Function heavy = kernel(a, "heavy", "h");
  heavy.launch_bounds = LaunchBounds{256, 2, "__launch_bounds__(256, 2)", a.range("h_lb")};
  m.functions.push_back(heavy);
  m.launches = {launch(m.functions[0], {32, 8, 1}, "dim3(32, 8)", a.range("l1")),
                launch(m.functions[1], {256, 1, 1}, "256", a.range("l2"))};
  return m;
}

json lens_capabilities() {
  json caps = default_client_capabilities();
  caps["workspace"]["codeLens"] = {{"refreshSupport", true}};
  return caps;
}

// The harness and the fake pipeline, released before the server goes so a
// fake that ignores its stop_token cannot block the service's destructor.
struct Fixture {
  Annotations a{kSnippet};
  FakeOccupancy occupancy;
  std::unique_ptr<ServerHarness> h;

  explicit Fixture(bool hold = false) {
    if (hold) occupancy.hold();
    server::ServerOptions options = fast_options();
    options.occupancy = occupancy.fn();
    h = std::make_unique<ServerHarness>(options, true, lens_capabilities());
    h->engine.set_model(snippet_model(a));
    h->engine.script("__global__", {make_finding("static-code", {{1, 0}, {1, 5}}, "a static finding")});
  }
  ~Fixture() {
    occupancy.release();
    h.reset();
  }

  void open(int version = 1, const std::string& text = "") {
    h->notify("textDocument/didOpen", did_open(kUri, version, text.empty() ? a.code() : text));
  }
  void change(int version, const std::string& text) {
    h->notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", version}}},
                                         {"contentChanges", json::array({{{"text", text}}})}});
  }
};

bool has_code(const json& params, const std::string& code) {
  for (const auto& d : params["diagnostics"])
    if (d.value("code", "") == code) return true;
  return false;
}

std::function<bool(const json&)> version_with(int version, const std::string& code) {
  return [version, code](const json& p) { return p.value("version", -1) == version && has_code(p, code); };
}

json protocol_position(Position p) { return position(p.line, p.column); }

}  // namespace

TEST_CASE("resource findings follow the static ones, for the same version") {
  Fixture f(/*hold=*/true);
  f.open();
  json first = f.h->wait_notification("textDocument/publishDiagnostics",
                                      [](const json& p) { return p.value("version", -1) == 1; });
  CHECK(has_code(first["params"], "static-code"));
  CHECK_FALSE(has_code(first["params"], "low-occupancy"));  // nvcc is still "running"

  f.occupancy.release();
  json second = f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  const json& p = second["params"];
  CHECK(has_code(p, "static-code"));  // the static findings stay
  for (const auto& d : p["diagnostics"])
    if (d["code"] == "register-spill") CHECK(d["message"].get<std::string>().find("heavy") != std::string::npos);
  if (occupancy_calculator_available()) CHECK(has_code(p, "low-occupancy"));
  CHECK(f.occupancy.calls() == 1);
}

TEST_CASE("a resource result for an old version is never published") {
  Fixture f(/*hold=*/true);
  f.occupancy.ignore_stop(true);  // the v1 result arrives although v2 exists
  f.open(1);
  f.h->wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p.value("version", -1) == 1; });
  run_until(f.h->io, [&] { return f.occupancy.calls() == 1; }, "resource usage of version 1 started");

  std::string v2 = f.a.code() + "// edited\n";
  f.change(2, v2);
  f.h->wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p.value("version", -1) == 2; });
  f.occupancy.release();  // v1's result comes back now, then v2 is computed

  f.h->wait_notification("textDocument/publishDiagnostics", version_with(2, "register-spill"));
  for (const auto& p : f.h->notifications("textDocument/publishDiagnostics"))
    if (p.value("version", -1) == 1) CHECK_FALSE(has_code(p, "register-spill"));
  auto texts = f.occupancy.texts();
  REQUIRE(texts.size() == 2);
  CHECK(texts[1] == v2);
}

TEST_CASE("a result that arrives while the next version waits for its analysis is dropped") {
  Fixture f(/*hold=*/true);
  f.occupancy.ignore_stop(true);
  f.open(1);
  f.h->wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p.value("version", -1) == 1; });
  run_until(f.h->io, [&] { return f.occupancy.calls() == 1; }, "resource usage of version 1 started");
  // Version 2 is debounced: no record of it yet, so version 1's is still the newest one.
  f.h->notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"debounceMs", 400}}}}}});
  f.change(2, f.a.code() + "// edited\n");
  f.occupancy.release();
  f.h->idle(std::chrono::milliseconds(150));  // v1's result comes back during the debounce
  f.occupancy.hold();                          // and v2's will wait
  json v2 = f.h->wait_notification("textDocument/publishDiagnostics",
                                   [](const json& p) { return p.value("version", -1) == 2; });
  CHECK(has_code(v2["params"], "static-code"));
  for (const auto& p : f.h->notifications("textDocument/publishDiagnostics")) CHECK_FALSE(has_code(p, "register-spill"));
  f.occupancy.release();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(2, "register-spill"));
  CHECK(f.occupancy.calls() == 2);
}

TEST_CASE("a newer version cancels the running resource computation") {
  Fixture f(/*hold=*/true);
  f.open(1);
  run_until(f.h->io, [&] { return f.occupancy.calls() == 1; }, "resource usage of version 1 started");
  f.change(2, f.a.code() + "// 2\n");
  run_until(f.h->io, [&] { return f.occupancy.cancelled() == 1; }, "version 1's computation cancelled");
  f.occupancy.release();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(2, "register-spill"));
  CHECK(f.occupancy.calls() == 2);
}

TEST_CASE("closing a document cancels its resource computation and publishes nothing more") {
  Fixture f(/*hold=*/true);
  f.open(1);
  run_until(f.h->io, [&] { return f.occupancy.calls() == 1; }, "resource usage started");
  f.h->notify("textDocument/didClose", {{"textDocument", text_document(kUri)}});
  run_until(f.h->io, [&] { return f.occupancy.cancelled() == 1; }, "cancelled on close");
  f.h->idle(std::chrono::milliseconds(100));
  for (const auto& p : f.h->notifications("textDocument/publishDiagnostics")) CHECK_FALSE(has_code(p, "register-spill"));
}

TEST_CASE("files without device code are not compiled") {
  Fixture f;
  f.h->engine.set_model(KernelModel{});
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics");
  f.h->idle(std::chrono::milliseconds(100));
  CHECK(f.occupancy.calls() == 0);
}

TEST_CASE("headers are not compiled on their own") {
  Fixture f;
  f.h->notify("textDocument/didOpen", did_open("file:///src/kernels.cuh", 1, f.a.code()));
  f.h->wait_notification("textDocument/publishDiagnostics");
  f.h->idle(std::chrono::milliseconds(100));
  CHECK(f.occupancy.calls() == 0);
}

TEST_CASE("code lens above each kernel, refreshed when resources arrive") {
  Fixture f;
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  run_until(f.h->io, [&] {
    for (const auto& r : f.h->server_requests)
      if (r["method"] == "workspace/codeLens/refresh") return true;
    return false;
  }, "workspace/codeLens/refresh");
  json lenses = f.h->request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"];
  std::vector<std::string> heavy_titles;
  Range heavy_name = f.a.range("h_name");
  for (const auto& l : lenses)
    if (l["range"]["start"]["line"] == heavy_name.start.line) heavy_titles.push_back(l["command"]["title"]);
  REQUIRE(heavy_titles.size() == 2);  // the launch summary, then resources
  CHECK(heavy_titles[0].find("launched") != std::string::npos);
  if (occupancy_calculator_available())
    CHECK(heavy_titles[1] == "128 regs · 25% occupancy (registers) @ 256 threads · 272 B spilled");
  else
    CHECK(heavy_titles[1].find("128 regs") == 0);
}

TEST_CASE("hover on a kernel name: the card, then one resource table; 'compiling' while nvcc runs") {
  Fixture f(/*hold=*/true);
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics");
  json hover_params = {{"textDocument", text_document(kUri)}, {"position", protocol_position(f.a.range("h_name").start)}};
  std::string pending = f.h->request("textDocument/hover", hover_params)["result"]["contents"]["value"];
  CHECK(pending.find("compiling with nvcc") != std::string::npos);

  f.occupancy.release();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  std::string md = f.h->request("textDocument/hover", hover_params)["result"]["contents"]["value"];
  INFO(md);
  // The kernel card first, then its resources: one table, padded so it reads
  // as a table in a float that shows the markdown source.
  CHECK(md.find("**kernel** `heavy`") < md.find("**Resources**"));
  const std::string header = "| registers | shared (static) | shared (dynamic) | stack | spill stores / loads | barriers |";
  CHECK(md.find(header) != std::string::npos);
  CHECK(md.find(header) == md.rfind(header));
  CHECK(md.find("|       128 |") != std::string::npos);
  if (occupancy_calculator_available()) {
    CHECK(md.find("By block size: 64 → 25% · 128 → 25% · **256 → 25%** · 512 → over `__launch_bounds__` · 1024 → "
                  "over `__launch_bounds__`") != std::string::npos);
    CHECK(md.find("limited by registers") != std::string::npos);
  }
  // One message per hover: the editors show the diagnostics themselves.
  for (const auto& d : f.h->notifications("textDocument/publishDiagnostics").back()["diagnostics"])
    CHECK_MESSAGE(md.find(d["message"].get<std::string>()) == std::string::npos, d["message"]);
  CHECK(md.find("compiling with nvcc") == std::string::npos);
}

TEST_CASE("after an edit the resource findings stay, moved with the text, until the new ones arrive") {
  Fixture f;
  f.open(1);
  json v1 = f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  f.occupancy.hold();
  // A line inserted above the kernels: nvcc "runs" for version 2 meanwhile.
  // The fake front end parses version 2 as the shifted text (its model's
  // ranges one line down), as the real one would.
  Annotations shifted{"// a new first line\n" + std::string(kSnippet)};
  f.h->engine.set_model(snippet_model(shifted));
  f.change(2, shifted.code());
  json v2 = f.h->wait_notification("textDocument/publishDiagnostics",
                                   [](const json& p) { return p.value("version", -1) == 2; });
  auto spill_line = [](const json& p) {
    for (const auto& d : p["diagnostics"])
      if (d["code"] == "register-spill") return d["range"]["start"]["line"].get<int>();
    return -1;
  };
  REQUIRE(spill_line(v1["params"]) >= 0);
  CHECK(spill_line(v2["params"]) == spill_line(v1["params"]) + 1);  // carried, one line down
  // The lens keeps its numbers too.
  json lenses = f.h->request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"];
  bool resources = false;
  for (const auto& l : lenses) resources |= l["command"]["title"].get<std::string>().find("128 regs") == 0;
  CHECK(resources);
  // The hover says the numbers are from the previous version.
  Range name = shifted.range("h_name");
  json hover = f.h->request("textDocument/hover", {{"textDocument", text_document(kUri)},
                                                   {"position", position(name.start.line, name.start.column)}});
  CHECK(hover["result"]["contents"]["value"].get<std::string>().find("these numbers are from version 1") !=
        std::string::npos);
  f.occupancy.release();
  // The next publication is version 2's own result (the carried one was consumed above).
  json fresh = f.h->wait_notification("textDocument/publishDiagnostics", version_with(2, "register-spill"));
  CHECK(f.occupancy.calls() == 2);
  CHECK(spill_line(fresh["params"]) == spill_line(v1["params"]) + 1);
}

TEST_CASE("code lenses open the kernel's report view (the client-side warplens.showKernelReport)") {
  Fixture f;
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  json lenses = f.h->request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"];
  REQUIRE(lenses.size() >= 2);
  for (const auto& l : lenses) {
    CHECK(l["command"]["command"] == "warplens.showKernelReport");
    CHECK(l["command"]["arguments"][0]["uri"] == kUri);
  }
  json init_commands = f.h->initialize_result["capabilities"]["executeCommandProvider"]["commands"];
  CHECK(std::find(init_commands.begin(), init_commands.end(), "warplens.showKernelReport") == init_commands.end());
  CHECK(std::find(init_commands.begin(), init_commands.end(), "warplens.kernelView") != init_commands.end());
}

TEST_CASE("warplens.kernelView: the report view's data (occupancy curve, roofline inputs) as plain numbers" *
          needs("occupancy-calculator")) {
  Fixture f;
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "register-spill"));
  json r = f.h->request("workspace/executeCommand",
                        {{"command", "warplens.kernelView"}, {"arguments", json::array({{{"uri", kUri}, {"kernel", "heavy"}}})}});
  REQUIRE_MESSAGE(r.contains("result"), r.dump());
  const json& v = r["result"];
  CHECK(v["kernel"]["name"] == "heavy");
  CHECK(v["resources"]["registers"] == 128);
  CHECK(v["gpu"]["arch"] == "sm_90");
  CHECK(v["gpu"]["fp32_gflops"] == 67000.0);
  CHECK(v["gpu"]["dram_gbs"] == 4800.0);
  const json& occ = v["occupancy"];
  CHECK(occ["value"] == doctest::Approx(0.25));
  CHECK(occ["limiter"] == "registers");
  CHECK(occ["block"]["threads"] == 256);
  REQUIRE(occ["curve"].size() == 32);  // 32, 64, ..., 1024
  CHECK(occ["curve"][7]["threads"] == 256);
  CHECK(occ["curve"][7]["current"] == true);
  CHECK(occ["curve"][7]["occupancy"] == doctest::Approx(0.25));
  CHECK(occ["curve"][8]["occupancy"].is_null());  // 288 threads exceed __launch_bounds__(256)
  CHECK(occ["curve"][8]["note"] == "exceeds __launch_bounds__");
  CHECK(v["work"]["modelled"] == false);  // the fake model has no accesses
  CHECK(v["measured"].is_null());
  json bad = f.h->request("workspace/executeCommand",
                          {{"command", "warplens.kernelView"}, {"arguments", json::array({{{"uri", kUri}, {"kernel", "nope"}}})}});
  CHECK(bad["error"]["message"].get<std::string>().find("no kernel `nope`") != std::string::npos);
}

// No lever without the calculator.
TEST_CASE("the __launch_bounds__ quick fix, resolved lazily" * needs("occupancy-calculator")) {
  Fixture f;
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics", version_with(1, "low-occupancy"));
  Range name = f.a.range("h_name");
  json params = {{"textDocument", text_document(kUri)},
                 {"range", range(name.start.line, name.start.column, name.end.line, name.end.column)},
                 {"context", {{"diagnostics", json::array()}}}};
  json actions = f.h->request("textDocument/codeAction", params)["result"];
  json chosen;
  for (const auto& a : actions)
    if (a["title"].get<std::string>().find("__launch_bounds__(256, 4)") != std::string::npos) chosen = a;
  REQUIRE_MESSAGE(chosen.is_object(), actions.dump());
  CHECK_FALSE(chosen.contains("edit"));  // the client resolves
  CHECK(chosen["diagnostics"][0]["code"] == "low-occupancy");

  json resolved = f.h->request("codeAction/resolve", chosen);
  REQUIRE_MESSAGE(resolved.contains("result"), resolved.dump());
  const json& edits = resolved["result"]["edit"]["documentChanges"][0]["edits"];
  REQUIRE(edits.size() == 1);
  Range lb = f.a.range("h_lb");
  CHECK(edits[0]["range"] == range(lb.start.line, lb.start.column, lb.end.line, lb.end.column));
  CHECK(edits[0]["newText"] == "__launch_bounds__(256, 4)");

  // After an edit the action's data is stale: resolve refuses, nothing is misapplied.
  f.change(2, f.a.code() + "// edited\n");
  f.h->wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p.value("version", -1) == 2; });
  json refused = f.h->request("codeAction/resolve", chosen);
  CHECK(refused["error"]["code"] == -32801);
}

TEST_CASE("warplens.report waits for resource usage and gives every kernel's numbers") {
  Fixture f(/*hold=*/true);
  f.open();
  f.h->wait_notification("textDocument/publishDiagnostics");
  json args = json::array({{{"uri", kUri}, {"position", protocol_position(f.a.range("h_name").start)}}});
  int id = f.h->send_request("workspace/executeCommand", {{"command", "warplens.report"}, {"arguments", args}});
  f.h->idle(std::chrono::milliseconds(100));
  for (const auto& m : f.h->sent()) CHECK_FALSE((m.contains("id") && m["id"] == id && !m.contains("method")));

  f.occupancy.release();
  json reply = f.h->wait_response(id);
  REQUIRE_MESSAGE(reply.contains("result"), reply.dump());
  const json& r = reply["result"];
  CHECK(r["kernel"] == "heavy(const float *, float *, int)");
  const json& file = r["files"][0];
  CHECK(file["resourceUsage"]["status"] == "ok");
  CHECK(file["resourceUsage"]["compiledArch"] == "sm_90");
  json heavy;
  for (const auto& k : file["kernels"])
    if (k["name"] == "heavy") heavy = k;
  REQUIRE_MESSAGE(heavy.is_object(), file["kernels"].dump());
  CHECK(heavy["registers"] == 128);
  CHECK(heavy["shared_static_bytes"] == 0);
  CHECK(heavy["spill_store_bytes"] == 272);
  CHECK(heavy["spill_load_bytes"] == 272);
  CHECK(heavy["stack_bytes"].is_number());
  CHECK(heavy["block_size"]["threads"] == 256);
  CHECK(heavy["block_size"]["source"] == "launch");
  CHECK(heavy["arch"] == "sm_90");
  CHECK(heavy["name_range"] == range(f.a.range("h_name").start.line, f.a.range("h_name").start.column,
                                     f.a.range("h_name").end.line, f.a.range("h_name").end.column));
  if (occupancy_calculator_available()) {
    CHECK(heavy["occupancy"].get<double>() == doctest::Approx(0.25));
    CHECK(heavy["limiter"] == "registers");
    CHECK(heavy["lever"]["launch_bounds"] == json::array({256, 4}));
    CHECK(heavy["table"].size() >= 5);
  }
  bool spill = false, static_code = false;
  for (const auto& d : file["diagnostics"]) {
    spill |= d["code"] == "register-spill";
    static_code |= d["code"] == "static-code";
  }
  CHECK(spill);
  CHECK(static_code);
}
