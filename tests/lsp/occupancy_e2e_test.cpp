// Resource usage and occupancy end to end, through the real binary, the
// real Clang front end and the real nvcc (the toolkit is on CI):
//   - `report --format json` gives every kernel its registers, shared
//     memory, stack, spills, block size (with its source), occupancy,
//     limiter and architecture;
//   - `check` includes register-spill and low-occupancy, and
//     --no-resource-usage leaves them out;
//   - an LSP session publishes them after the parse and shows the occupancy
//     code lens above the kernel.
// Skipped (needs(), tests/support/requirements.h) when this build has no
// front end or the machine no nvcc.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/binary_requirements.h"
#include "support/lsp_client.h"

using namespace warplens::testing;
using warplens::test::needs;

namespace {

// The recorded kernels of the ptxas fixtures: `heavy` spills and, with
// __launch_bounds__(256, 2) and its 256-thread launch, reaches 25%.
std::string kernels_source() {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/ptxas/kernels.cu", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str() +
         "\nvoid launch_heavy(const float* in, float* out, int n) { heavy<<<64, 256>>>(in, out, n); }\n";
}

struct Files {
  std::filesystem::path dir;
  std::string path;
  Files() {
    dir = std::filesystem::temp_directory_path() / ("warplens-occupancy-e2e-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    path = (dir / "kernels.cu").string();
    std::ofstream(path, std::ios::binary) << kernels_source();
  }
  ~Files() { std::filesystem::remove_all(dir); }
};

json find_kernel(const json& file, const std::string& name) {
  for (const auto& k : file["kernels"])
    if (k["name"] == name) return k;
  return nullptr;
}

}  // namespace

TEST_CASE("report --format json: resources and occupancy per kernel, from nvcc" * needs("clang-front-end", "nvcc")) {
  Files f;
  auto r = run_warplens({"report", "--format", "json", f.path}, 300s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  json file = json::parse(r.out)["files"][0];
  CHECK(file["resourceUsage"]["status"] == "ok");
  CHECK(file["resourceUsage"]["compiledArch"] == "sm_90");
  json heavy = find_kernel(file, "heavy");
  REQUIRE_MESSAGE(heavy.is_object(), file["kernels"].dump());
  CHECK(heavy["arch"] == "sm_90");
  CHECK(heavy["registers"].get<int>() > 64);
  CHECK(heavy["spill_store_bytes"].get<int>() > 0);
  CHECK(heavy["spill_load_bytes"].get<int>() > 0);
  CHECK(heavy["stack_bytes"].get<int>() > 0);
  CHECK(heavy["shared_static_bytes"] == 0);
  CHECK(heavy["block_size"]["threads"] == 256);
  CHECK(heavy["block_size"]["source"] == "launch");
  CHECK(heavy["occupancy"].get<double>() > 0.0);
  CHECK(heavy["occupancy"].get<double>() < 0.5);
  CHECK(heavy["limiter"] == "registers");
  json transpose = find_kernel(file, "transpose");
  REQUIRE(transpose.is_object());
  CHECK(transpose["shared_static_bytes"] == 32 * 33 * 4);
  CHECK(transpose["block_size"]["source"] == "default");  // no launch of it in the file
  CHECK(transpose["occupancy"].get<double>() == doctest::Approx(1.0));

  auto skipped = run_warplens({"report", "--no-resource-usage", f.path}, 300s);
  REQUIRE(skipped.exit_code == 0);
  json bare = json::parse(skipped.out)["files"][0];
  CHECK(bare["resourceUsage"]["status"] == "skipped");
  CHECK(bare["kernels"].empty());
  CHECK_FALSE(bare["functions"].empty());
}

TEST_CASE("check includes register-spill and low-occupancy; --no-resource-usage skips nvcc" * needs("clang-front-end", "nvcc")) {
  Files f;
  auto r = run_warplens({"check", "--format", "json", f.path}, 300s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  json out = json::parse(r.out);
  std::set<std::string> codes;
  for (const auto& d : out) codes.insert(d["code"].get<std::string>());
  CHECK(codes.count("register-spill"));
  CHECK(codes.count("low-occupancy"));

  auto text = run_warplens({"check", f.path}, 300s);
  CHECK(text.out.find(": warning: low occupancy: `heavy` reaches ") != std::string::npos);

  auto skipped = run_warplens({"check", "--format", "json", "--no-resource-usage", f.path}, 300s);
  REQUIRE(skipped.exit_code == 0);
  for (const auto& d : json::parse(skipped.out)) {
    CHECK(d["code"] != "register-spill");
    CHECK(d["code"] != "low-occupancy");
  }
}

TEST_CASE("an LSP session publishes resource findings and the occupancy code lens" * needs("clang-front-end", "nvcc")) {
  Files f;
  ServerProcess server({"--debounce-ms", "0", "--log-level", "debug"});
  LspClient client(server);
  json caps = LspClient::capabilities_utf16();
  caps["workspace"]["codeLens"] = {{"refreshSupport", true}};
  client.initialize(caps);
  std::string uri = "file://" + f.path;
  client.notify("textDocument/didOpen", did_open(uri, 1, kernels_source()));

  auto has = [](const json& p, const char* code) {
    for (const auto& d : p["diagnostics"])
      if (d.value("code", "") == code) return true;
    return false;
  };
  json first = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri; });
  CHECK(first["params"]["version"] == 1);
  json with_resources = client.wait_notification(
      "textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri && has(p, "register-spill"); },
      120s);
  CHECK(with_resources["params"]["version"] == 1);
  CHECK(has(with_resources["params"], "low-occupancy"));

  client.wait_notification("warplens/status", [](const json& p) { return p["gpu"].is_object(); });
  client.drain(500ms);  // the refresh request follows the publication
  bool refreshed = false;
  for (const auto& r : client.server_requests) refreshed |= r["method"] == "workspace/codeLens/refresh";
  CHECK(refreshed);

  json lenses = client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  bool heavy_lens = false;
  for (const auto& l : lenses["result"]) {
    std::string title = l["command"]["title"];
    if (title.find(" regs · ") != std::string::npos && title.find("% occupancy (registers) @ 256 threads") != std::string::npos)
      heavy_lens = true;
  }
  CHECK_MESSAGE(heavy_lens, lenses.dump());
  CHECK(client.shutdown_and_exit() == 0);
}
