// Measured results in the server (server/profile_feature.cpp), in-process
// with the fake engine and the recorded profile fixtures
// (tests/fixtures/profile/: the H200 recordings when committed, else the
// provisional files): warplens.profile with a profileFile, diagnostics on
// the exact lines, code lenses, prediction-vs-measurement hovers, stale
// marking after an edit, warplens.clearProfile, and the paths that stop
// before a program runs (no GPU, nothing to profile, unsaved file, a failing
// buildCommand) — CI has no GPU.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "profiler/units.h"
#include "server_harness.h"
#include "tests/unit/profiler/test_support.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

const std::string kProgram = std::string(WARPLENS_SOURCE_DIR) + "/tests/gpu/profiler_transpose.cu";
// Another spelling of the program: the fixture was recorded in another
// checkout, and is matched by file name.
const std::string kUri = "file:///src/profiler_transpose.cu";

std::string program_text() { return test::read_file(kProgram); }

KernelModel transpose_model(const std::string& text) {
  KernelModel m;
  auto access = [&](MemorySpace space, AccessKind kind, int line, const std::string& spelling) {
    MemoryAccess a;
    a.space = space;
    a.kind = kind;
    a.spelling = spelling;
    a.range = test::range_on_line(text, line, spelling);
    return a;
  };
  auto kernel = [&](const std::string& name) {
    Function f;
    f.name = name;
    f.key = name + "(float *, const float *)";
    f.kind = FunctionKind::Kernel;
    f.signature = "void " + name + "(float *out, const float *in)";
    for (const char* type : {"float *", "const float *"}) {
      Parameter p;
      p.type = type;
      f.params.push_back(p);
    }
    f.name_range = test::range_on_line(text, test::line_of(text, "void " + name + "("), name);
    f.range = f.name_range;
    return f;
  };
  const int naive = test::line_of(text, "// LINE naive");
  const int tiled_read = test::line_of(text, "// LINE tiled-read");
  Function n = kernel("transpose_naive");
  n.accesses.push_back(access(MemorySpace::Global, AccessKind::Store, naive, "out[x * N + y]"));
  n.accesses.push_back(access(MemorySpace::Global, AccessKind::Load, naive, "in[y * N + x]"));
  Function t = kernel("transpose_tiled");
  t.accesses.push_back(access(MemorySpace::Global, AccessKind::Store, tiled_read, "out[y * N + x]"));
  t.accesses.push_back(access(MemorySpace::Shared, AccessKind::Load, tiled_read, "tile[threadIdx.x][threadIdx.y]"));
  m.functions = {n, t, kernel("transpose_padded")};
  return m;
}

// The static analysis' prediction on the naive store, as the fake engine's finding.
Finding predicted_store(const std::string& text) {
  Finding f = make_finding("uncoalesced-global",
                           test::range_on_line(text, test::line_of(text, "// LINE naive"), "out[x * N + y]"),
                           "uncoalesced store of `out[x * N + y]` (predicted)");
  f.data.set("sectors", std::int64_t(32));
  f.data.set("ideal", std::int64_t(4));
  f.data.set("ratio", 8.0);
  return f;
}

json lens_capabilities() {
  json caps = default_client_capabilities();
  caps["workspace"]["codeLens"] = {{"refreshSupport", true}};
  return caps;
}

json lsp_range(const Range& r) { return range(r.start.line, r.start.column, r.end.line, r.end.column); }

std::vector<json> from_profile(const json& publish) {
  std::vector<json> out;
  for (const auto& d : publish["diagnostics"])
    if (d.value("source", "") == "warplens-profile") out.push_back(d);
  return out;
}

bool has_profile(const json& p) { return !from_profile(p).empty(); }

struct Session {
  std::string text = program_text();
  ServerHarness h;

  explicit Session(server::ServerOptions options = fast_options()) : h(options, true, lens_capabilities()) {
    h.engine.set_model(transpose_model(text));
    h.engine.script("LINE naive", {predicted_store(text)});
  }

  json open(const std::string& uri = kUri, const std::string& content = "") {
    h.notify("textDocument/didOpen", did_open(uri, 1, content.empty() ? text : content));
    return h.wait_notification("textDocument/publishDiagnostics", [uri](const json& p) { return p["uri"] == uri; });
  }
  json profile(json argument, std::string token = "") {
    json params = {{"command", "warplens.profile"}, {"arguments", json::array({argument})}};
    if (!token.empty()) params["workDoneToken"] = token;
    return h.request("workspace/executeCommand", params);
  }
  json profile_fixture(const std::string& name = "transpose") {
    return profile({{"uri", kUri}, {"profileFile", test::fixture_path(name)}});
  }
  void change(int version, const std::string& content) {
    h.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", version}}},
                                        {"contentChanges", json::array({{{"text", content}}})}});
  }
  json lenses() { return h.request("textDocument/codeLens", {{"textDocument", text_document(kUri)}})["result"]; }
  std::string hover(Position p) {
    json r = h.request("textDocument/hover",
                       {{"textDocument", text_document(kUri)}, {"position", position(p.line, p.column)}});
    return r["result"].is_null() ? "" : r["result"]["contents"]["value"].get<std::string>();
  }
  std::vector<std::string> lens_titles(const std::string& kernel) {
    int line = test::line_of(text, "void " + kernel + "(") - 1;
    std::vector<std::string> out;
    for (const auto& l : lenses())
      if (l["range"]["start"]["line"] == line) out.push_back(l["command"]["title"]);
    return out;
  }
};

// A directory of files for the tests that need the document on disk.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/warplens-profile-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    std::ofstream(path / name, std::ios::binary) << content;
    return (path / name).string();
  }
};

profile::GpuStatus fake_gpu(std::stop_token) {
  profile::GpuStatus s;
  s.available = true;
  s.method = "test";
  s.devices.push_back({0, "Test GPU", 9, 0});
  return s;
}

}  // namespace

TEST_CASE("a recorded profile becomes diagnostics on the exact lines, with the static ones") {
  Session s;
  s.open();
  json reply = s.profile({{"uri", kUri}, {"profileFile", test::fixture_path("transpose")}}, "profile-token");
  REQUIRE_MESSAGE(reply.contains("result"), reply.dump());
  const json& result = reply["result"];
  CHECK(result["findings"] == 2);
  CHECK(result["kernels"] == 3);
  CHECK(result["version"] == 1);
  CHECK(result["summary"].get<std::string>().find("recorded profile") == 0);
  CHECK(result["summary"].get<std::string>().find("2 measured findings in profiler_transpose.cu") != std::string::npos);

  // Published before the reply: the last publication for version 1 has them.
  auto publications = s.h.notifications("textDocument/publishDiagnostics");
  REQUIRE_FALSE(publications.empty());
  const json& last = publications.back();
  CHECK(last["version"] == 1);
  auto measured = from_profile(last);
  REQUIRE(measured.size() == 2);
  std::map<std::string, json> by_code;
  for (const auto& d : measured) by_code[d["code"]] = d;
  const int naive = test::line_of(s.text, "// LINE naive");
  const int tiled_read = test::line_of(s.text, "// LINE tiled-read");
  // The store's finding covers the store (placed with the static model), not the load beside it.
  CHECK(by_code["uncoalesced-global"]["range"] == lsp_range(test::range_on_line(s.text, naive, "out[x * N + y]")));
  CHECK(by_code["uncoalesced-global"]["severity"] == 2);
  CHECK(by_code["uncoalesced-global"]["message"].get<std::string>().find("measured global store: ") == 0);
  CHECK(by_code["shared-bank-conflict"]["range"] ==
        lsp_range(test::range_on_line(s.text, tiled_read, "tile[threadIdx.x][threadIdx.y]")));
  bool static_kept = false;
  for (const auto& d : last["diagnostics"]) static_kept |= d["message"] == "uncoalesced store of `out[x * N + y]` (predicted)";
  CHECK(static_kept);

  // The job reported progress under the client's token, begin first and end last.
  std::vector<std::string> kinds;
  for (const auto& p : s.h.notifications("$/progress"))
    if (p["token"] == "profile-token") kinds.push_back(p["value"]["kind"]);
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds.front() == "begin");
  CHECK(kinds.back() == "end");
}

TEST_CASE("a code lens per measured kernel, and hovers with the prediction beside the measurement") {
  Session s;
  s.open();
  REQUIRE(s.profile_fixture().contains("result"));
  auto titles = s.lens_titles("transpose_naive");
  REQUIRE(titles.size() == 2);  // the launch summary, then the measurement
  CHECK(titles[1].find("measured: ") == 0);
  CHECK(titles[1].find("/launch") != std::string::npos);
  const std::string peak =
      profile::format_bandwidth_gbs(test::load_fixture("transpose").devices.at(0).peak_bandwidth_gbs);
  CHECK(titles[1].find("of " + peak + " peak") != std::string::npos);

  const int naive = test::line_of(s.text, "// LINE naive");
  // Tables are padded to aligned columns (analysis/markdown_table.h): compare with runs of spaces squashed.
  auto squash = [](std::string t) {
    std::string out;
    for (char c : t)
      if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
    return out;
  };
  std::string line_hover = squash(s.hover(test::range_on_line(s.text, naive, "out[x * N + y]").start));
  CHECK(line_hover.find("**Predicted vs measured** (measured · recorded profile ") != std::string::npos);
  CHECK(line_hover.find("| uncoalesced-global | predicted (static) | measured |") != std::string::npos);
  CHECK(line_hover.find("| sectors per request | 32 (ideal 4) | ") != std::string::npos);
  CHECK(line_hover.find("| traffic / ideal | 8.0× | ") != std::string::npos);

  // The tiled read was measured but not predicted (the fake engine has no finding there).
  const int tiled_read = test::line_of(s.text, "// LINE tiled-read");
  std::string conflict = squash(s.hover(test::range_on_line(s.text, tiled_read, "tile[threadIdx.x][threadIdx.y]").start));
  CHECK(conflict.find("| bank conflict | — | 32") != std::string::npos);
  CHECK(conflict.find("did not predict this") != std::string::npos);

  std::string kernel_hover = squash(s.hover(test::range_on_line(s.text, test::line_of(s.text, "void transpose_naive("),
                                                                "transpose_naive").start));
  CHECK(kernel_hover.find("| kernel transpose_naive | predicted (static) | measured |") != std::string::npos);
  CHECK(kernel_hover.find("| time per launch | — | ") != std::string::npos);
  CHECK(kernel_hover.find("| block | — | 32×32×1 |") != std::string::npos);
}

TEST_CASE("after an edit measured results are marked stale; undoing the edit makes them current") {
  Session s;
  s.open();
  REQUIRE(s.profile_fixture().contains("result"));

  // Insert a line above the kernels: the measured lines now point one line too high.
  std::string edited = "// a new first line\n" + s.text;
  s.change(2, edited);
  json stale = s.h.wait_notification("textDocument/publishDiagnostics",
                                     [](const json& p) { return p.value("version", -1) == 2; });
  auto measured = from_profile(stale["params"]);
  REQUIRE(measured.size() == 2);
  for (const auto& d : measured) {
    CHECK(d["message"].get<std::string>().find("(stale: measured on version 1) measured ") == 0);
    CHECK(d["severity"] == 3);  // information, not a warning any more
    CHECK(d["data"]["stale"] == true);
    CHECK(d["data"]["measured_version"] == 1);
  }
  auto titles = s.lens_titles("transpose_naive");  // the model's ranges are the fake's (unshifted)
  REQUIRE(titles.size() == 2);
  CHECK(titles[1].find("measured on version 1 (stale): ") == 0);
  const int naive = test::line_of(s.text, "// LINE naive");
  std::string hover = s.hover(test::range_on_line(s.text, naive, "out[x * N + y]").start);
  CHECK(hover.find("(stale: measured on version 1 · recorded profile") != std::string::npos);

  s.change(3, s.text);  // undo
  json current = s.h.wait_notification("textDocument/publishDiagnostics",
                                       [](const json& p) { return p.value("version", -1) == 3; });
  measured = from_profile(current["params"]);
  REQUIRE(measured.size() == 2);
  for (const auto& d : measured) {
    CHECK(d["message"].get<std::string>().find("measured ") == 0);
    CHECK(d["severity"] == 2);
  }
}

TEST_CASE("stale findings whose line is gone are dropped") {
  Session s;
  s.open();
  REQUIRE(s.profile_fixture().contains("result"));
  s.change(2, "// everything deleted\n");
  json p = s.h.wait_notification("textDocument/publishDiagnostics",
                                 [](const json& p) { return p.value("version", -1) == 2; });
  CHECK(from_profile(p["params"]).empty());
}

TEST_CASE("warplens.clearProfile removes measured diagnostics and lenses") {
  Session s;
  s.open();
  REQUIRE(s.profile_fixture().contains("result"));
  json reply = s.h.request("workspace/executeCommand",
                           {{"command", "warplens.clearProfile"}, {"arguments", json::array({{{"uri", kUri}}})}});
  CHECK(reply["result"]["cleared"] == json::array({kUri}));
  json p = s.h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return !has_profile(p); });
  bool static_kept = false;
  for (const auto& d : p["params"]["diagnostics"]) static_kept |= d["code"] == "uncoalesced-global";
  CHECK(static_kept);
  CHECK(s.lens_titles("transpose_naive").size() == 1);
  // Clearing all when nothing is left clears nothing.
  reply = s.h.request("workspace/executeCommand", {{"command", "warplens.clearProfile"}, {"arguments", json::array()}});
  CHECK(reply["result"]["cleared"].empty());
}

TEST_CASE("a new profile replaces the previous one") {
  Session s;
  s.open();
  REQUIRE(s.profile_fixture("transpose").contains("result"));
  // The strided copy's profile has no lines in this file.
  json reply = s.profile_fixture("strided_copy");
  REQUIRE(reply.contains("result"));
  CHECK(reply["result"]["findings"] == 0);
  s.h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return !has_profile(p); });
}

TEST_CASE("without a GPU: a clear message, the job fails, nothing else changes") {
  ::setenv(profile::kAssumeNoGpuEnv, "1", 1);
  Session s;  // no gpu_probe option: the profiler's own probe, which honours the variable
  s.open();
  json reply = s.profile({{"uri", kUri}});  // single-file mode: the program has main()
  ::unsetenv(profile::kAssumeNoGpuEnv);
  REQUIRE(reply.contains("error"));
  CHECK(reply["error"]["code"] == -32803);
  CHECK(reply["error"]["message"].get<std::string>().find("cannot profile: ") == 0);
  // Said once, by the request's error (which the editor shows), not again as a message.
  CHECK(s.h.notifications("window/showMessage").empty());
  for (const auto& p : s.h.notifications("textDocument/publishDiagnostics")) CHECK_FALSE(has_profile(p));
  // The server carries on.
  CHECK(s.lens_titles("transpose_naive").size() == 1);
  json again = s.h.request("workspace/executeCommand", {{"command", "warplens.listJobs"}});
  CHECK(again["result"].empty());
}

TEST_CASE("profileCommand mode checks for a GPU first") {
  server::ServerOptions options = fast_options();
  options.gpu_probe = [](std::stop_token) {
    profile::GpuStatus s;
    s.reason = "no NVIDIA device files (/dev/nvidia*)";
    return s;
  };
  Session s(options);
  s.h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"profileCommand", "./app"}}}}}});
  s.open();
  json reply = s.profile({{"uri", kUri}});
  REQUIRE(reply.contains("error"));
  CHECK(reply["error"]["message"] == "cannot profile: no NVIDIA device files (/dev/nvidia*)");
  CHECK(s.h.notifications("window/showMessage").empty());
}

TEST_CASE("nothing to profile: no profileCommand and no main()") {
  server::ServerOptions options = fast_options();
  options.gpu_probe = fake_gpu;
  Session s(options);
  s.h.notify("textDocument/didOpen", did_open("file:///src/lib.cu", 1, "__global__ void k() {}\n"));
  json reply = s.profile({{"uri", "file:///src/lib.cu"}});
  REQUIRE(reply.contains("error"));
  CHECK(reply["error"]["message"].get<std::string>().find("set warplens.profileCommand") != std::string::npos);
  CHECK(s.h.notifications("window/showMessage").empty());  // the reply says it
}

TEST_CASE("a document with unsaved changes is not profiled") {
  server::ServerOptions options = fast_options();
  options.gpu_probe = fake_gpu;
  Session s(options);
  TempDir dir;
  std::string path = dir.write("app.cu", s.text);
  std::string uri = "file://" + path;
  s.open(uri, s.text + "// unsaved\n");
  json reply = s.profile({{"uri", uri}});
  REQUIRE(reply.contains("error"));
  CHECK(reply["error"]["message"].get<std::string>().find("app.cu has unsaved changes: save it first") == 0);
}

TEST_CASE("a failing buildCommand stops the profile with its output") {
  server::ServerOptions options = fast_options();
  options.gpu_probe = fake_gpu;
  Session s(options);
  TempDir dir;
  std::string path = dir.write("app.cu", s.text);
  s.h.notify("workspace/didChangeConfiguration",
             {{"settings",
               {{"warplens", {{"profileCommand", "./app"}, {"buildCommand", "echo 'app.cu:3: broken' >&2; exit 3"}}}}}});
  s.open("file://" + path, s.text);
  json reply = s.profile({{"uri", "file://" + path}});
  REQUIRE(reply.contains("error"));
  std::string message = reply["error"]["message"];
  CHECK(message.find("the build command `echo 'app.cu:3: broken' >&2; exit 3` exited with code 3") == 0);
  CHECK(message.find("app.cu:3: broken") != std::string::npos);
}

TEST_CASE("bad arguments and a bad profile file are clear errors") {
  Session s;
  s.open();
  json missing = s.profile({{"uri", kUri}, {"profileFile", "/nonexistent/profile.json"}});
  REQUIRE(missing.contains("error"));
  CHECK(missing["error"]["message"].get<std::string>().find("cannot use the profile /nonexistent/profile.json") == 0);
  json not_open = s.profile({{"uri", "file:///src/other.cu"}});
  CHECK(not_open["error"]["code"] == -32602);
  json no_uri = s.profile(json::object());
  CHECK(no_uri["error"]["code"] == -32602);
  json bad_file = s.profile({{"uri", kUri}, {"profileFile", 3}});
  CHECK(bad_file["error"]["code"] == -32602);
}

TEST_CASE("warplens.report without resource usage: the model, skipped resources, the diagnostics") {
  Session s;
  s.open();
  json reply = s.h.request(
      "workspace/executeCommand",
      {{"command", "warplens.report"},
       {"arguments", json::array({{{"uri", kUri}, {"kernel", "transpose_tiled"}}})}});
  REQUIRE_MESSAGE(reply.contains("result"), reply.dump());
  const json& r = reply["result"];
  REQUIRE(r["files"].size() == 1);
  const json& file = r["files"][0];
  CHECK(file["file"] == "/src/profiler_transpose.cu");
  CHECK(file["version"] == 1);
  CHECK(file["functions"].size() == 3);
  CHECK(file["resourceUsage"]["status"] == "skipped");
  CHECK(file["kernels"].empty());
  REQUIRE(file["diagnostics"].size() == 1);
  CHECK(file["diagnostics"][0]["code"] == "uncoalesced-global");
  CHECK(r["kernel"] == "transpose_tiled(float *, const float *)");
}
