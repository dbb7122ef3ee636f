// Issue 13, in the editor: `warplens.optimize` with profileCommand set, on a
// plain program saved on disk, offers a reshaped winner (warp-per-row: 32x
// the threads) verified by the real capture/replay verifier on the fake GPU.
// Everything below the language server is production code but three seams of
// the real backend (server/optimize_backend.h): the GPU probe (a fake GPU),
// the capture runner (writes the synthetic capture of the program's launches
// instead of running it under CUPTI) and the policy (proposes the rewrite
// the built-in engine makes of this kernel; the fake GPU runs candidates by
// file name, so the candidate's id names its CPU stand-in). The job loop,
// the backend's verifier choice, agent::CaptureVerifier, verify(), nvcc and
// both replay children are the real ones.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "agent/job.h"
#include "server/optimize_backend.h"
#include "tests/unit/agent/launch_case_captures.h"
#include "tests/unit/agent/verifier_test_support.h"
#include "tests/unit/server/server_harness.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::testing;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void replace(std::string& s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  s.replace(at, from.size(), to);
}

// What warp-per-row makes of tests/gpu/launch_cases/matvec.cu:
// the kernel body, a shuffle helper, and the launch with 32x the threads.
std::string warp_per_row(std::string text) {
  replace(text, "__global__ void matvec_rows",
          "template <typename T>\n__device__ __forceinline__ T wl_warp_sum(T v) {\n"
          "  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);\n"
          "  return v;\n}\n\n__global__ void matvec_rows");
  replace(text, "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n",
          "  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;\n"
          "  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32);\n");
  replace(text, "    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];\n    y[row] = acc;\n",
          "    for (int k = wl_lane; k < N; k += 32) acc += A[row * N + k] * x[k];\n    acc = wl_warp_sum(acc);\n"
          "    if (wl_lane == 0) y[row] = acc;\n");
  replace(text, "matvec_rows<<<(M + 127) / 128, 128>>>", "matvec_rows<<<(M * 32 + 127) / 128, 128>>>");
  return text;
}

class WarpPerRowPolicy : public agent::Policy {
 public:
  std::string name() const override { return "test: the built-in engine's warp-per-row"; }
  std::vector<agent::Candidate> propose(const agent::PolicyContext& ctx, int, std::stop_token) override {
    if (done_) return {};
    done_ = true;
    agent::Candidate c;
    c.id = "warp_per_row_matvec";  // the fake GPU's stand-in for this source
    c.kernel = c.result_kernel = "matvec_rows";
    c.policy = "builtin";
    c.plan = {agent::RewriteStep{"warp-per-row", {}}};
    c.description = "one warp per row";
    c.source = warp_per_row(ctx.file.text);
    agent::LaunchChange change;
    change.kernel = "matvec_rows";
    change.thread_scale[0] = {32, 1};
    c.launch_changes = {change};
    return {c};
  }

 private:
  bool done_ = false;
};

KernelModel matvec_model(const std::string& file) {
  Function f;
  f.name = f.key = "matvec_rows";
  f.kind = FunctionKind::Kernel;
  f.range = {{6, 0}, {13, 1}};
  f.name_range = {{6, 16}, {6, 27}};
  f.body_range = f.range;
  KernelModel m;
  m.file = file;
  m.functions = {f};
  return m;
}

}  // namespace

TEST_CASE("editor: profileCommand + a plain program: a warp-per-row winner is verified on the capture and offered") {
  verifier::test::TempDir ws;
  const fs::path file = ws.path() / "matvec.cu";
  fs::copy_file(fs::path(WARPLENS_SOURCE_DIR) / "tests/gpu/launch_cases/matvec.cu", file);
  const std::string text = read(file);
  const std::string uri = "file://" + file.string();
  ::setenv("XDG_CACHE_HOME", (ws.path() / "cache").c_str(), 1);

  std::vector<verifier::CaptureRequest> captures;
  server::GpuBackendOptions b;
  b.probe = [](std::stop_token) {
    profile::GpuStatus g;
    g.available = true;
    g.devices.push_back(profile::GpuDevice{0, "Test GPU", 9, 0});
    return g;
  };
  b.capture = [&](const verifier::CaptureRequest& r, std::stop_token) {
    captures.push_back(r);
    verifier::CaptureRunResult out;
    out.ok = verifier::test::write_launch_case_capture("matvec", r.out_dir);
    if (out.ok) out.manifest = capture::load_capture(r.out_dir);
    return out;
  };
  b.loop = [](const agent::OptimizeRequest& req, agent::Policy&, agent::CandidateVerifier& verifier,
              const agent::PolicyTools* tools, const agent::ProgressCallback& progress, std::stop_token stop) {
    WarpPerRowPolicy policy;
    return agent::run_optimize_job(req, policy, verifier, tools, progress, stop);
  };
  server::ServerOptions o = fast_options();
  o.optimize = server::gpu_optimize_backend(b);
  ServerHarness h(o);
  h.engine.set_model(matvec_model(file.string()));
  h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"profileCommand", "./matvec"}}}}}});
  h.notify("textDocument/didOpen", did_open(uri, 1, text));
  h.wait_notification("textDocument/publishDiagnostics");

  json r = h.wait_response(h.send_request("workspace/executeCommand",
                                          {{"command", "warplens.optimize"},
                                           {"arguments", json::array({{{"uri", uri}, {"kernel", "matvec_rows"}}})}}),
                           std::chrono::seconds(300));
  INFO(r.dump(2));
  REQUIRE(r.contains("result"));
  const json& result = r["result"];
  // The program's launches were captured through profileCommand.
  REQUIRE(captures.size() == 1);
  CHECK(captures[0].program == std::vector<std::string>{"/bin/sh", "-c", "./matvec"});
  REQUIRE(result["rewrites"].size() == 1);
  const json& best = result["rewrites"][0];
  const std::string title = best["title"];
  CHECK(title.find("Apply verified rewrite: ") == 0);
  CHECK(title.find("× faster (level 2, correct on 5 input sets on Test GPU): warp-per-row()") != std::string::npos);
  // The edit turns the saved program into the candidate.
  const json& change = best["edit"]["documentChanges"][0];
  CHECK(change["textDocument"]["uri"] == uri);
  std::string applied = text;
  for (auto it = change["edits"].rbegin(); it != change["edits"].rend(); ++it) {
    auto offset = [&](const json& p) {
      std::size_t at = 0;
      for (int line = 0; line < p["line"].get<int>(); ++line) at = applied.find('\n', at) + 1;
      return at + p["character"].get<std::size_t>();
    };
    const std::size_t a = offset((*it)["range"]["start"]), e = offset((*it)["range"]["end"]);
    applied.replace(a, e - a, (*it)["newText"].get<std::string>());
  }
  CHECK(applied == warp_per_row(text));
  // The report states what ran: the original's 8 blocks, the candidate's 256.
  const std::string report = read(result["report"].get<std::string>());
  CHECK(report.find("- replayed: set 0 (captured launch 0): grid (8,1,1) block (128,1,1) -> grid (256,1,1) block "
                    "(128,1,1)") != std::string::npos);
  CHECK(report.find("- replayed: set 1 (captured launch 1): grid (2,1,1) block (64,1,1) -> grid (64,1,1) block "
                    "(64,1,1)") != std::string::npos);
}
