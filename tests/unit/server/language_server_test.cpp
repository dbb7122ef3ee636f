// The language server in-process, with a fake engine: lifecycle, error
// replies, text sync, diagnostics, hover, code actions, code lenses,
// cancellation and settings.
#include <doctest/doctest.h>

#include <set>

#include <filesystem>
#include <fstream>

#include "server_harness.h"

using namespace warplens;
using namespace warplens::testing;
using namespace std::chrono_literals;

namespace {

const std::string kUri = "file:///w/kernel.cu";
const std::string kPath = "/w/kernel.cu";
// Line 2 has non-ASCII text before the access: its UTF-16 columns differ from bytes.
const std::string kText =
    "__global__ void scale(float* a, int n) {\n"
    "  int i = threadIdx.x;\n"
    "  /* é😀 */ a[i * 32] *= 2.0f;\n"
    "}\n"
    "void host(float* a) { scale<<<1, 256>>>(a, 4); }\n";

// The engine range of the first occurrence of `needle` (UTF-8 bytes).
Range byte_range(const std::string& text, const std::string& needle) {
  auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 0;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  int col = static_cast<int>(at - line_start);
  return {{line, col}, {line, col + static_cast<int>(needle.size())}};
}

Finding uncoalesced() {
  Finding f = make_finding("uncoalesced-global", byte_range(kText, "a[i * 32]"),
                           "global store is uncoalesced: 32 sectors per request (ideal 4)");
  f.explanation_markdown = "Lanes are **128 bytes** apart.";
  f.data.set("sectors", std::int64_t{32});
  f.related.push_back({{kPath, byte_range(kText, "float* a")}, "parameter declared here"});
  Fix fix;
  fix.title = "Index with i instead of i * 32";
  fix.file = kPath;
  fix.edits.push_back({byte_range(kText, "i * 32"), "i"});
  fix.preferred = true;
  f.fixes.push_back(fix);
  return f;
}

KernelModel scale_model() {
  KernelModel m;
  Function k;
  k.name = "scale";
  k.key = "scale(float*, int)";
  k.signature = "void scale(float *a, int n)";
  k.kind = FunctionKind::Kernel;
  k.name_range = byte_range(kText, "scale");
  Parameter a;
  a.name = "a";
  a.type = "float *";
  a.range = byte_range(kText, "float* a");
  a.is_pointer = true;
  a.pointee_type = "float";
  a.pointee_bytes = 4;
  Parameter n;
  n.name = "n";
  n.type = "int";
  n.range = byte_range(kText, "int n");
  k.params = {a, n};
  m.functions.push_back(k);
  LaunchSite l;
  l.kernel = "scale";
  l.kernel_key = k.key;
  l.caller = "host";
  l.range = byte_range(kText, "scale<<<1, 256>>>(a, 4)");
  l.grid = {"1", std::array<std::int64_t, 3>{1, 1, 1}, {}};
  l.block = {"256", std::array<std::int64_t, 3>{256, 1, 1}, {}};
  m.launches.push_back(l);
  return m;
}

json open_and_wait(ServerHarness& h, const std::string& text = kText, int version = 1) {
  h.notify("textDocument/didOpen", did_open(kUri, version, text));
  return h.wait_notification("textDocument/publishDiagnostics",
                             [&](const json& p) { return p["uri"] == kUri && p["version"] == version; });
}

}  // namespace

TEST_CASE("lifecycle: requests before initialize are refused, initialize negotiates, a second one is refused") {
  ServerHarness h(fast_options(), /*initialize_now=*/false);
  json early = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(0, 0)}});
  CHECK(early["error"]["code"] == -32002);

  json init = h.initialize();
  const json& caps = init["result"]["capabilities"];
  CHECK(caps["positionEncoding"] == "utf-16");
  CHECK(caps["textDocumentSync"]["change"] == 2);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["codeActionProvider"]["resolveProvider"] == true);
  CHECK(caps["codeLensProvider"].is_object());
  auto commands = caps["executeCommandProvider"]["commands"];
  CHECK(std::find(commands.begin(), commands.end(), "warplens.cancelJob") != commands.end());
  CHECK(std::find(commands.begin(), commands.end(), "warplens.debug.sleep") == commands.end());
  CHECK(init["result"]["serverInfo"]["name"] == "warplens");

  json again = h.request("initialize", {{"capabilities", json::object()}});
  CHECK(again["error"]["code"] == -32600);
}

TEST_CASE("utf-8 positions are chosen when the client offers them") {
  ServerHarness h(fast_options(), false);
  json caps = default_client_capabilities();
  caps["general"] = {{"positionEncodings", {"utf-16", "utf-8"}}};
  CHECK(h.initialize(caps)["result"]["capabilities"]["positionEncoding"] == "utf-8");
}

TEST_CASE("malformed input gets error replies and the server lives on") {
  ServerHarness h;
  h.send_raw("{not json");
  h.send_raw(R"({"jsonrpc":"2.0","id":5,"method":"x","params":7})");
  h.send_raw(R"([])");
  h.server().receive(protocol::FrameEvent{protocol::FramingError{protocol::FramingErrorKind::TooLarge, "too big"}});
  h.idle();
  auto sent = h.sent();
  auto errors = std::count_if(sent.begin(), sent.end(), [](const json& m) { return m.contains("error"); });
  CHECK(errors == 4);
  bool parse_error = false, invalid_with_id = false;
  for (const auto& m : sent) {
    if (!m.contains("error")) continue;
    if (m["error"]["code"] == -32700) parse_error = m["id"].is_null();
    if (m["error"]["code"] == -32600 && m["id"] == 5) invalid_with_id = true;
  }
  CHECK(parse_error);
  CHECK(invalid_with_id);
  CHECK(h.request("warplens/noSuchMethod", json::object())["error"]["code"] == -32601);
  h.notify("warplens/noSuchNotification", json::object());
  CHECK(h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", "bad"}})["error"]["code"] ==
        -32602);
  // Still alive and answering.
  CHECK(h.request("workspace/executeCommand", {{"command", "warplens.listJobs"}})["result"].is_array());
}

TEST_CASE("diagnostics: published with the version, UTF-16 columns, code, data, related information") {
  std::filesystem::path docs = std::filesystem::temp_directory_path() / "warplens-test-docs";
  std::filesystem::create_directories(docs);
  std::ofstream(docs / "uncoalesced-global.md") << "# uncoalesced-global\n";
  server::ServerOptions options = fast_options();
  options.docs_dir = docs.string();
  ServerHarness h(options);
  h.engine.script("a[i * 32]", {uncoalesced()});
  json published = open_and_wait(h)["params"];
  REQUIRE(published["diagnostics"].size() == 1);
  const json& d = published["diagnostics"][0];
  // "  /* é😀 */ " is 14 bytes but 12 UTF-16 code units before "a[".
  CHECK(d["range"] == range(2, 12, 2, 21));
  CHECK(d["severity"] == 2);
  CHECK(d["code"] == "uncoalesced-global");
  CHECK(d["source"] == "warplens");
  CHECK(d["codeDescription"]["href"].get<std::string>().find("uncoalesced-global.md") != std::string::npos);
  CHECK(d["data"]["sectors"] == 32);
  CHECK(d["relatedInformation"][0]["location"]["uri"] == kUri);
  CHECK(d["relatedInformation"][0]["message"] == "parameter declared here");
  std::filesystem::remove_all(docs);
}

TEST_CASE("didChange: incremental edits, fresh diagnostics for the new version only") {
  ServerHarness h;
  h.engine.script("a[i * 32]", {uncoalesced()});
  CHECK(open_and_wait(h)["params"]["diagnostics"].size() == 1);
  // Replace "i * 32" (UTF-16 columns 14..20 on line 2) with "i".
  h.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", 2}}},
            {"contentChanges", {{{"range", range(2, 14, 2, 20)}, {"text", "i"}}}}});
  json v2 = h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 2; });
  CHECK(v2["params"]["diagnostics"].empty());
  CHECK(h.engine.texts().back().find("/* é😀 */ a[i] *= 2.0f;") != std::string::npos);
}

TEST_CASE("a burst of changes within the debounce publishes only the last version") {
  server::ServerOptions options = fast_options();
  options.debounce = 300ms;
  ServerHarness h(options);
  h.notify("textDocument/didOpen", did_open(kUri, 1, "a"));
  for (int v = 2; v <= 4; ++v)
    h.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", v}}},
                                        {"contentChanges", {{{"text", "v" + std::to_string(v)}}}}});
  h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 4; });
  h.idle(50ms);
  CHECK(h.notifications("textDocument/publishDiagnostics").size() == 1);
  CHECK(h.engine.texts() == std::vector<std::string>{"v4"});
}

TEST_CASE("a result finishing after a newer edit is not published") {
  ServerHarness h;
  h.engine.hold();
  h.engine.ignore_stop(true);
  h.notify("textDocument/didOpen", did_open(kUri, 1, "old"));
  run_until(h.io, [&] { return h.engine.calls() == 1; }, "analysis of version 1 started");
  h.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", {{{"text", "new"}}}}});
  h.engine.release();
  h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 2; });
  h.idle(50ms);
  for (const auto& p : h.notifications("textDocument/publishDiagnostics")) CHECK(p["version"] == 2);
}

TEST_CASE("didClose clears diagnostics; a change that does not fit drops the document and says so") {
  ServerHarness h;
  h.engine.script("a[i * 32]", {uncoalesced()});
  open_and_wait(h);
  h.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", {{{"range", range(40, 0, 40, 1)}, {"text", "x"}}}}});
  json cleared = h.wait_notification("textDocument/publishDiagnostics",
                                     [](const json& p) { return p["diagnostics"].empty() && !p.contains("version"); });
  json message = h.wait_notification("window/showMessage");
  CHECK(message["params"]["type"] == 1);
  CHECK(message["params"]["message"].get<std::string>().find("reopen") != std::string::npos);
  // Reopen, then close: cleared again.
  open_and_wait(h, kText, 3);
  h.notify("textDocument/didClose", {{"textDocument", text_document(kUri)}});
  h.wait_notification("textDocument/publishDiagnostics",
                      [](const json& p) { return p["diagnostics"].empty() && !p.contains("version"); });
}

TEST_CASE("hover: finding explanations and the kernel card, from the current version") {
  ServerHarness h;
  h.engine.script("a[i * 32]", {uncoalesced()});
  h.engine.set_model(scale_model());
  open_and_wait(h);
  json on_access = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(2, 12)}});
  const json& r = on_access["result"];
  CHECK(r["contents"]["kind"] == "markdown");
  std::string md = r["contents"]["value"];
  // The explanation, not the message: editors show the diagnostic themselves.
  CHECK(md == "Lanes are **128 bytes** apart.");
  CHECK(r["range"] == range(2, 12, 2, 21));

  json on_name = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(0, 17)}});
  std::string card = on_name["result"]["contents"]["value"];
  CHECK(card.find("**kernel** `scale`") != std::string::npos);
  CHECK(card.find("__global__ void scale(float *a, int n)") != std::string::npos);  // the names, with their types
  CHECK(card.find("block 256×1×1") != std::string::npos);

  json on_launch = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(4, 24)}});
  CHECK(on_launch["result"]["contents"]["value"].get<std::string>().find("`scale`") != std::string::npos);

  json nothing = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(1, 0)}});
  CHECK(nothing["result"].is_null());
  json closed = h.request("textDocument/hover",
                          {{"textDocument", text_document("file:///w/other.cu")}, {"position", position(0, 0)}});
  CHECK(closed["result"].is_null());
  json outside = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(99, 0)}});
  CHECK(outside["error"]["code"] == -32602);
  CHECK(h.engine.calls() == 1);  // hovers never reparse
}

TEST_CASE("hover: a fusable-intermediate also explains itself on its related places, other codes do not") {
  ServerHarness h;
  Finding fusion = make_finding("fusable-intermediate", byte_range(kText, "scale<<<1, 256>>>(a, 4)"),
                                "`a` is written by `scale` and read once by `scale`");
  fusion.explanation_markdown = "Data flow in `host`";
  fusion.related.push_back({{kPath, byte_range(kText, "void host")}, "`a` is written here by `scale`"});
  h.engine.script("a[i * 32]", {uncoalesced(), fusion});
  open_and_wait(h);
  auto hover_at = [&](int line, int character) {
    json r = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(line, character)}});
    return r["result"].is_null() ? std::string() : r["result"]["contents"]["value"].get<std::string>();
  };
  CHECK(hover_at(4, 2).find("Data flow in `host`") != std::string::npos);   // the related producer place
  CHECK(hover_at(4, 24).find("Data flow in `host`") != std::string::npos);  // the launch itself
  CHECK(hover_at(0, 24).find("Lanes are") == std::string::npos);            // uncoalesced's related place
}

TEST_CASE("hover waits for a pending analysis; $/cancelRequest answers -32800; a newer edit answers -32801") {
  ServerHarness h;
  h.engine.hold();
  h.notify("textDocument/didOpen", did_open(kUri, 1, kText));
  int hover = h.send_request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(0, 0)}});
  h.idle();
  h.notify("$/cancelRequest", {{"id", hover}});
  CHECK(h.wait_response(hover)["error"]["code"] == -32800);

  int modified = h.send_request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(0, 0)}});
  h.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", {{{"text", "x"}}}}});
  CHECK(h.wait_response(modified)["error"]["code"] == -32801);
  h.engine.release();
  h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 2; });
  // Exactly one answer per request.
  int answers = 0;
  for (const auto& m : h.sent()) answers += (!m.contains("method") && m.value("id", json()) == hover) ? 1 : 0;
  CHECK(answers == 1);
}

TEST_CASE("code actions: listed lazily with data, resolved with a versioned edit, refused once the text changed") {
  ServerHarness h;
  h.engine.script("a[i * 32]", {uncoalesced()});
  open_and_wait(h);
  json params = {{"textDocument", text_document(kUri)},
                 {"range", range(2, 14, 2, 14)},
                 {"context", {{"diagnostics", json::array()}}}};
  json actions = h.request("textDocument/codeAction", params)["result"];
  REQUIRE(actions.size() == 1);
  const json& a = actions[0];
  CHECK(a["title"] == "Index with i instead of i * 32");
  CHECK(a["kind"] == "quickfix");
  CHECK(a["isPreferred"] == true);
  CHECK_FALSE(a.contains("edit"));
  CHECK(a["data"]["version"] == 1);
  CHECK(a["diagnostics"][0]["code"] == "uncoalesced-global");

  json resolved = h.request("codeAction/resolve", a)["result"];
  const json& doc_edit = resolved["edit"]["documentChanges"][0];
  CHECK(doc_edit["textDocument"]["uri"] == kUri);
  CHECK(doc_edit["textDocument"]["version"] == 1);
  CHECK(doc_edit["edits"][0]["range"] == range(2, 14, 2, 20));
  CHECK(doc_edit["edits"][0]["newText"] == "i");

  json other_range = params;
  other_range["range"] = range(0, 0, 0, 1);
  CHECK(h.request("textDocument/codeAction", other_range)["result"].empty());
  json only_refactor = params;
  only_refactor["context"]["only"] = {"refactor"};
  CHECK(h.request("textDocument/codeAction", only_refactor)["result"].empty());

  h.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", {{{"range", range(0, 0, 0, 0)}, {"text", "// \n"}}}}});
  CHECK(h.request("codeAction/resolve", a)["error"]["code"] == -32801);
  CHECK(h.request("codeAction/resolve", json{{"title", "x"}})["error"]["code"] == -32602);
}

TEST_CASE("clients without resolve support get the edit at once") {
  json caps = default_client_capabilities();
  caps["textDocument"]["codeAction"].erase("resolveSupport");
  caps["workspace"]["workspaceEdit"]["documentChanges"] = false;
  ServerHarness h(fast_options(), true, caps);
  h.engine.script("a[i * 32]", {uncoalesced()});
  open_and_wait(h);
  json actions = h.request("textDocument/codeAction", {{"textDocument", text_document(kUri)},
                                                       {"range", range(2, 14, 2, 14)},
                                                       {"context", {{"diagnostics", json::array()}}}})["result"];
  REQUIRE(actions.size() == 1);
  CHECK(actions[0]["edit"]["changes"][kUri][0]["newText"] == "i");
}

TEST_CASE("code lenses: one per kernel with its launch summary") {
  ServerHarness h;
  h.engine.set_model(scale_model());
  open_and_wait(h);
  json lenses = h.request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"];
  REQUIRE(lenses.size() == 1);
  CHECK(lenses[0]["range"] == range(0, 16, 0, 21));
  CHECK(lenses[0]["command"]["title"] == "launched 1× · block 256×1×1");
  CHECK(lenses[0]["command"]["command"] == "warplens.showKernelReport");  // the client opens the report view
  CHECK(lenses[0]["command"]["arguments"] == json::array({{{"uri", kUri}, {"kernel", "scale"}}}));
}

TEST_CASE("clangDiagnostics off: Clang's own diagnostics are not published, warplens' stay; no reanalysis") {
  ServerHarness h;
  Finding clang_error = make_finding("clang", byte_range(kText, "a[i * 32]"), "expected ';' after expression");
  clang_error.source = "clang";
  clang_error.severity = Severity::Error;
  h.engine.script("a[i * 32]", {uncoalesced(), clang_error});
  open_and_wait(h);
  auto sources = [&](const json& p) {
    std::set<std::string> out;
    for (const auto& d : p["diagnostics"]) out.insert(d["source"].get<std::string>());
    return out;
  };
  CHECK(sources(h.notifications("textDocument/publishDiagnostics").back()) == std::set<std::string>{"clang", "warplens"});
  h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"clangDiagnostics", "off"}}}}}});
  json off = h.wait_notification("textDocument/publishDiagnostics");
  CHECK(sources(off["params"]) == std::set<std::string>{"warplens"});
  h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"clangDiagnostics", "on"}}}}}});
  json on = h.wait_notification("textDocument/publishDiagnostics");
  CHECK(sources(on["params"]) == std::set<std::string>{"clang", "warplens"});
  CHECK(h.engine.calls() == 1);  // republished, not re-analysed
  CHECK(h.notifications("window/showMessage").empty());
}

TEST_CASE("a handler that throws is answered with an error and the server lives on") {
  ServerHarness h;
  h.server().context().registry.hover_providers.push_back(
      [](const server::HoverQuery&) -> std::optional<server::HoverSection> { throw std::runtime_error("boom"); });
  open_and_wait(h);
  json r = h.request("textDocument/hover", {{"textDocument", text_document(kUri)}, {"position", position(0, 0)}});
  CHECK(r["error"]["code"] == -32603);
  CHECK(r["error"]["message"].get<std::string>().find("boom") != std::string::npos);
  CHECK(h.request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"].is_array());
}

// Found by the odd-requests abuse script: a `uri` of another type was a
// json type_error, answered -32603 (internal error) instead of -32602.
TEST_CASE("warplens.reanalyze with a uri that is not a string is invalid params") {
  ServerHarness h;
  open_and_wait(h);
  for (const json& uri : {json(5), json::array(), json::object(), json(true)}) {
    CAPTURE(uri.dump());
    json r = h.request("workspace/executeCommand", {{"command", "warplens.reanalyze"}, {"arguments", {{{"uri", uri}}}}});
    CHECK(r["error"]["code"] == -32602);
  }
  // null is no uri: every open document.
  CHECK(h.request("workspace/executeCommand", {{"command", "warplens.reanalyze"}, {"arguments", {{{"uri", nullptr}}}}})
            .contains("result"));
}

TEST_CASE("shutdown then exit gives exit code 0; requests after shutdown are refused") {
  ServerHarness h;
  CHECK(h.request("shutdown", nullptr)["result"].is_null());
  CHECK(h.request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["error"]["code"] == -32600);
  h.notify("exit", nullptr);
  CHECK(h.exit_code == 0);
}

TEST_CASE("exit without shutdown gives exit code 1") {
  ServerHarness h;
  h.notify("exit", nullptr);
  CHECK(h.exit_code == 1);
  CHECK(h.server().exit_code() == 1);
}

TEST_CASE("settings from initializationOptions reach the engine; bad ones are reported") {
  json init = {{"warplens",
                {{"arch", "sm_80"},
                 {"thresholds", {{"bankConflict", 4}, {"occupancy", 7}}},
                 {"defaultBlockSize", {16, 16}},
                 {"kernelBlockSizes", {{"scale", 512}}},
                 {"llm", {{"apiKey", "sk-SECRET"}}}}}};
  ServerHarness h(fast_options(), true, default_client_capabilities(), init);
  open_and_wait(h);
  auto o = h.engine.options().back();
  CHECK(o.arch == "sm_80");
  CHECK(o.bank_conflict_threshold == 4);
  CHECK(o.occupancy_threshold == doctest::Approx(0.5));  // 7 was refused
  CHECK(o.default_block == BlockShape{16, 16, 1});
  CHECK(o.kernel_blocks.at("scale") == BlockShape{512, 1, 1});
  std::string warnings;
  for (const auto& m : h.notifications("window/showMessage")) warnings += m["message"].get<std::string>() + "\n";
  CHECK(warnings.find("thresholds.occupancy") != std::string::npos);
  CHECK(warnings.find("WARPLENS_LLM_API_KEY") != std::string::npos);
  for (const auto& m : h.sent()) CHECK(m.dump().find("sk-SECRET") == std::string::npos);
}

TEST_CASE("didChangeConfiguration re-analyses with the new settings; pull-model clients are asked") {
  json caps = default_client_capabilities();
  caps["workspace"]["configuration"] = true;
  ServerHarness h(fast_options(), false);
  h.answers["workspace/configuration"] = [](const json&) { return json::array({{{"arch", "sm_75"}}}); };
  h.initialize(caps);
  open_and_wait(h);
  run_until(h.io, [&] { return h.engine.options().back().arch == "sm_75"; }, "pulled settings applied");
  h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"arch", "sm_86"}}}}}});
  run_until(h.io, [&] { return h.engine.options().back().arch == "sm_86"; }, "pushed settings applied");
  CHECK(h.server_requests.front()["method"] == "workspace/configuration");
}

TEST_CASE("warplens/status goes starting, parsing, ready, with the toolchain") {
  ServerHarness h;
  open_and_wait(h);
  json ready = h.wait_notification("warplens/status", [](const json& p) { return p["state"] == "ready"; });
  CHECK(ready["params"]["cudaFound"] == true);
  CHECK(ready["params"]["cudaVersion"] == "13.0");
  CHECK(ready["params"]["gpu"].is_null());
  auto all = h.notifications("warplens/status");
  REQUIRE(all.size() >= 2);
  CHECK(all.front()["state"] == "starting");
}
