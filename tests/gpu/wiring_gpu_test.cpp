// The editor's profile path on a real GPU, through the real binary: the
// language server profiles a program with the CUPTI injection library and
// shows the measurements as diagnostics and code lenses (issue 6's LSP
// part), and names the GPU in warplens/status.
//
//   - warplens/status: gpu.available, the device's name and arch;
//   - warplens.profile in single-file mode (a saved .cu with main);
//   - warplens.profile with buildCommand + profileCommand (workspace mode);
//   - an edit marks the measurements stale; warplens.clearProfile clears;
//   - WARPLENS_PROFILE_ASSUME_NO_GPU=1: the no-GPU message, nothing else.
//
// Exits 77 (ctest: skipped) without a GPU. Builds without Clang (the H200
// has none): the front end then parses nothing, so measured findings cover
// whole lines instead of the exact access. With WARPLENS_GPU_OUT set, the
// replies and diagnostics are written there.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "profiler/gpu_probe.h"
#include "support/lsp_client.h"

using namespace warplens::testing;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int line_of(const std::string& text, const std::string& needle) {  // 0-based
  std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 0;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

void save(const std::string& name, const json& j) {
  const char* out = std::getenv("WARPLENS_GPU_OUT");
  if (!out || !*out) return;
  fs::create_directories(fs::path(out) / "wiring");
  std::ofstream(fs::path(out) / "wiring" / name) << j.dump(2) << "\n";
}

struct Workspace {
  fs::path dir;
  std::string path, uri, text;
  Workspace() {
    dir = fs::temp_directory_path() / ("warplens-wiring-gpu-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    text = read(fs::path(WARPLENS_SOURCE_DIR) / "tests/gpu/profiler_transpose.cu");
    path = (dir / "transpose.cu").string();
    std::ofstream(path, std::ios::binary) << text;
    uri = "file://" + path;
  }
  ~Workspace() { fs::remove_all(dir); }
};

struct Session {
  Workspace ws;
  ServerProcess server{{"--debounce-ms", "0", "--log-level", "debug"}};
  LspClient client{server};

  explicit Session(json settings = json::object()) {
    json caps = LspClient::capabilities_utf16();
    caps["workspace"]["codeLens"] = {{"refreshSupport", true}};
    json params_root = "file://" + ws.dir.string();
    client.send(json{{"jsonrpc", "2.0"},
                     {"id", 1000},
                     {"method", "initialize"},
                     {"params",
                      {{"processId", nullptr},
                       {"rootUri", params_root},
                       {"capabilities", caps},
                       {"initializationOptions", {{"warplens", settings}}}}}});
    REQUIRE(client.wait_response(1000).contains("result"));
    client.notify("initialized", json::object());
    client.notify("textDocument/didOpen", did_open(ws.uri, 1, ws.text));
    client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == ws.uri; });
  }
  json profile() {
    return client.request("workspace/executeCommand",
                          {{"command", "warplens.profile"},
                           {"workDoneToken", "gpu-profile"},
                           {"arguments", json::array({{{"uri", ws.uri}}})}},
                          std::chrono::seconds(400));
  }
  json last_diagnostics() {
    json last;
    for (const auto& p : client.notifications("textDocument/publishDiagnostics"))
      if (p["uri"] == ws.uri) last = p;
    return last;
  }
};

std::vector<json> measured(const json& publish) {
  std::vector<json> out;
  for (const auto& d : publish["diagnostics"])
    if (d.value("source", "") == "warplens-profile") out.push_back(d);
  return out;
}

// The naive store's line and the tiled column read's line carry the two
// expected findings; the padded kernel's lines carry none.
void check_transpose_findings(const Workspace& ws, const json& publish) {
  auto found = measured(publish);
  int naive = line_of(ws.text, "// LINE naive");
  int tiled = line_of(ws.text, "// LINE tiled-read");
  int padded = line_of(ws.text, "// LINE padded-read");
  bool store = false, conflict = false;
  for (const auto& d : found) {
    int line = d["range"]["start"]["line"];
    store |= line == naive && d["code"] == "uncoalesced-global";
    conflict |= line == tiled && d["code"] == "shared-bank-conflict";
    CHECK(line != padded);
  }
  CHECK_MESSAGE(store, publish.dump(1));
  CHECK_MESSAGE(conflict, publish.dump(1));
}

}  // namespace

int main(int argc, char** argv) {
  warplens::profile::GpuStatus gpu = warplens::profile::probe_gpus();
  if (!gpu.available) {
    std::printf("skipped: %s\n", gpu.reason.c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}

TEST_CASE("warplens/status names the GPU") {
  Session s;
  json status = s.client.wait_notification("warplens/status", [](const json& p) { return p["gpu"].is_object(); });
  save("status.json", status);
  CHECK(status["params"]["gpu"]["available"] == true);
  CHECK(status["params"]["gpu"]["name"].get<std::string>().find("NVIDIA") != std::string::npos);
  CHECK(status["params"]["gpu"]["arch"].get<std::string>().rfind("sm_", 0) == 0);
}

TEST_CASE("single-file mode: measured diagnostics and lenses on the transpose") {
  Session s;
  json reply = s.profile();
  save("single_file_reply.json", reply);
  REQUIRE_MESSAGE(reply.contains("result"), reply.dump() << "\n" << s.server.stderr_text());
  CHECK(reply["result"]["kernels"] == 3);
  CHECK(reply["result"]["findings"].get<int>() >= 2);
  json publish = s.last_diagnostics();
  save("single_file_diagnostics.json", publish);
  check_transpose_findings(s.ws, publish);

  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", s.ws.uri}}}});
  save("single_file_lenses.json", lenses);
  // Without a front end there are no kernels in the model, hence no lenses;
  // with one, each kernel gets its measured lens.
  for (const auto& l : lenses["result"]) {
    std::string title = l["command"]["title"];
    if (title.rfind("measured: ", 0) == 0) CHECK(title.find("/launch") != std::string::npos);
  }

  // An edit marks them stale; clearing removes them.
  s.client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", s.ws.uri}, {"version", 2}}},
                   {"contentChanges", json::array({{{"text", s.ws.text + "// edited\n"}}})}});
  json stale = s.client.wait_notification("textDocument/publishDiagnostics",
                                          [](const json& p) { return p.value("version", -1) == 2; });
  auto stale_found = measured(stale["params"]);
  REQUIRE_FALSE(stale_found.empty());
  for (const auto& d : stale_found) {
    CHECK(d["message"].get<std::string>().rfind("(stale: measured on version 1) ", 0) == 0);
    CHECK(d["severity"] == 3);
  }
  s.client.request("workspace/executeCommand", {{"command", "warplens.clearProfile"}, {"arguments", json::array()}});
  json cleared = s.client.wait_notification("textDocument/publishDiagnostics",
                                            [](const json& p) { return measured(p).empty(); });
  CHECK(cleared["params"]["version"] == 2);
  CHECK(s.client.shutdown_and_exit() == 0);
}

TEST_CASE("workspace mode: buildCommand then profileCommand") {
  auto gpu = warplens::profile::probe_gpus();
  REQUIRE_FALSE(gpu.devices.empty());
  std::string arch = gpu.devices.front().arch();
  json settings = {{"buildCommand", "nvcc -lineinfo -O3 -arch=" + arch + " -o app transpose.cu"},
                   {"profileCommand", "./app 2"}};
  Session s(settings);
  json reply = s.profile();
  save("workspace_reply.json", reply);
  REQUIRE_MESSAGE(reply.contains("result"), reply.dump() << "\n" << s.server.stderr_text());
  CHECK(reply["result"]["summary"].get<std::string>().find("profiled `./app 2` on ") == 0);
  check_transpose_findings(s.ws, s.last_diagnostics());
  CHECK(s.client.shutdown_and_exit() == 0);
}

TEST_CASE("WARPLENS_PROFILE_ASSUME_NO_GPU=1: a clear message and nothing else") {
  ::setenv(warplens::profile::kAssumeNoGpuEnv, "1", 1);
  Session s;
  ::unsetenv(warplens::profile::kAssumeNoGpuEnv);
  json reply = s.profile();
  save("no_gpu_reply.json", reply);
  REQUIRE(reply.contains("error"));
  CHECK(reply["error"]["message"].get<std::string>().find("cannot profile: ") == 0);
  json message = s.client.wait_notification("window/showMessage");
  CHECK(message["params"]["type"] == 1);
  CHECK(measured(s.last_diagnostics()).empty());
  json status = s.client.wait_notification("warplens/status", [](const json& p) { return p["gpu"].is_object(); });
  CHECK(status["params"]["gpu"]["available"] == false);
  CHECK(s.client.shutdown_and_exit() == 0);
}
