// Issue 13, in the editor: `warplens.optimize` with profileCommand set, on a
// plain program saved on disk, offers the winners the capture path used to
// call "not verifiable yet" (warp-per-row: 32x the threads; swapped mapping;
// a fused pair), verified by the real capture/replay verifier on the fake GPU.
// Everything below the language server is production code but three seams of
// the real backend (workflows/optimize.h): the GPU probe (a fake GPU),
// the capture runner (writes the synthetic capture of the program's launches
// instead of running it under CUPTI) and the policy (proposes the rewrite
// the built-in engine makes of this kernel; the fake GPU runs candidates by
// file name, so the candidate's id names its CPU stand-in). The job loop,
// the backend's verifier choice, agent::CaptureVerifier, verify(), nvcc and
// both replay children are the real ones.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "agent/job.h"
#include "agent/rewrite_engine.h"
#include "workflows/optimize.h"
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

// What swap-thread-mapping makes of matmul_rowx.cu: x and y roles
// exchanged in the kernel, grid and block axes exchanged at the launch.
std::string swapped(std::string text) {
  replace(text, "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n  int col = blockIdx.y * blockDim.y + threadIdx.y;\n",
          "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n  int col = blockIdx.x * blockDim.x + threadIdx.x;\n");
  replace(text, "grid((M + 15) / 16, (N + 15) / 16)", "grid((N + 15) / 16, (M + 15) / 16)");
  return text;
}

// What fuse-elementwise makes of elementwise_chain.cu: the fused kernel, and
// one launch in place of the two.
std::string fused(std::string text) {
  replace(text, "int main() {",
          "__global__ void mul_bias_relu_fused(const float* wl_a_x, const float* wl_a_y, float* wl_a_tmp, int wl_a_n,\n"
          "                                    float bias, float* out, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i < n) {\n    float v = (wl_a_x[(i)] * wl_a_y[(i)]) + bias;\n    out[i] = v > 0.0f ? v : 0.0f;\n  }\n}\n\n"
          "int main() {");
  replace(text, "  mul<<<blocks, 256>>>(x, y, tmp, n);\n  bias_relu<<<blocks, 256>>>(tmp, 0.1f, out, n);\n",
          "  mul_bias_relu_fused<<<blocks, 256>>>(x, y, tmp, n, 0.1f, out, n);\n");
  return text;
}

// Proposes the one candidate the built-in engine would make of the file
// (the fake GPU runs candidates by file name: the id names its stand-in).
class OneRewritePolicy : public agent::Policy {
 public:
  explicit OneRewritePolicy(agent::Candidate c) : c_(std::move(c)) {}
  std::string name() const override { return "test: one built-in rewrite"; }
  std::vector<agent::Candidate> propose(const agent::PolicyContext&, int, std::stop_token) override {
    if (done_) return {};
    done_ = true;
    return {c_};
  }

 private:
  agent::Candidate c_;
  bool done_ = false;
};

KernelModel model_of(const std::string& file, const std::string& kernel, int line) {
  Function f;
  f.name = f.key = kernel;
  f.kind = FunctionKind::Kernel;
  f.range = {{line, 0}, {line + 7, 1}};
  f.name_range = {{line, 16}, {line, 16 + static_cast<int>(kernel.size())}};
  f.body_range = f.range;
  KernelModel m;
  m.file = file;
  m.functions = {f};
  return m;
}

struct EditorRun {
  json result;
  std::string text;                                // the saved program
  std::vector<verifier::CaptureRequest> captures;  // what the backend asked to capture
};

// warplens.optimize on tests/gpu/launch_cases/`program` saved in a
// workspace, profileCommand set; the capture runner writes the synthetic
// capture `capture_key` (`pair_key` when both kernels of a pair are asked).
EditorRun optimize_in_editor(const std::string& program, const std::string& kernel, int kernel_line,
                             const std::string& capture_key, const std::string& pair_key,
                             const std::function<agent::Candidate(const std::string&)>& rewrite) {
  static verifier::test::TempDir root;
  static int n = 0;
  const fs::path ws = root.path() / std::to_string(n++);
  fs::create_directories(ws);
  const fs::path file = ws / program;
  fs::copy_file(fs::path(WARPLENS_SOURCE_DIR) / "tests/gpu/launch_cases" / program, file);
  EditorRun out;
  out.text = read(file);
  const std::string uri = "file://" + file.string();
  ::setenv("XDG_CACHE_HOME", (ws / "cache").c_str(), 1);

  workflows::GpuBackendOptions b;
  b.probe = [](std::stop_token) {
    profile::GpuStatus g;
    g.available = true;
    g.devices.push_back(profile::GpuDevice{0, "Test GPU", 9, 0});
    return g;
  };
  b.capture = [&out, capture_key, pair_key](const verifier::CaptureRequest& r, std::stop_token) {
    out.captures.push_back(r);
    verifier::CaptureRunResult res;
    res.ok = verifier::test::write_launch_case_capture(r.max_launches_per_kernel > 0 ? pair_key : capture_key,
                                                        r.out_dir);
    if (res.ok) res.manifest = capture::load_capture(r.out_dir);
    return res;
  };
  b.loop = [&](const agent::OptimizeRequest& req, agent::Policy&, agent::CandidateVerifier& verifier,
               const agent::PolicyTools* tools, const agent::ProgressCallback& progress, std::stop_token stop) {
    OneRewritePolicy policy(rewrite(req.file.text));
    return agent::run_optimize_job(req, policy, verifier, tools, progress, stop);
  };
  server::ServerOptions o = fast_options();
  o.optimize = workflows::gpu_optimize_backend(b);
  ServerHarness h(o);
  h.engine.set_model(model_of(file.string(), kernel, kernel_line));
  h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"profileCommand", "./app"}}}}}});
  h.notify("textDocument/didOpen", did_open(uri, 1, out.text));
  h.wait_notification("textDocument/publishDiagnostics");
  json r = h.wait_response(h.send_request("workspace/executeCommand",
                                          {{"command", "warplens.optimize"},
                                           {"arguments", json::array({{{"uri", uri}, {"kernel", kernel}}})}}),
                           std::chrono::seconds(300));
  REQUIRE_MESSAGE(r.contains("result"), r.dump(2));
  out.result = r["result"];
  return out;
}

// The WorkspaceEdit applied to `text`.
std::string apply(std::string text, const json& edit) {
  const json& change = edit["documentChanges"][0];
  for (auto it = change["edits"].rbegin(); it != change["edits"].rend(); ++it) {
    auto offset = [&](const json& p) {
      std::size_t at = 0;
      for (int line = 0; line < p["line"].get<int>(); ++line) at = text.find('\n', at) + 1;
      return at + p["character"].get<std::size_t>();
    };
    const std::size_t a = offset((*it)["range"]["start"]), e = offset((*it)["range"]["end"]);
    text.replace(a, e - a, (*it)["newText"].get<std::string>());
  }
  return text;
}

agent::Candidate candidate(const std::string& id, const std::string& kernel, const std::string& rewrite,
                           std::string source) {
  agent::Candidate c;
  c.id = id;
  c.kernel = c.result_kernel = kernel;
  c.policy = "builtin";
  c.plan = {agent::RewriteStep{rewrite, {}}};
  c.description = rewrite;
  c.source = std::move(source);
  return c;
}

}  // namespace

namespace {
// The optimize job picks its policy before the test's loop seam replaces it,
// and a build without Clang refuses the built-in one (the message the editor
// shows): these cases run in the Clang build only, skipped otherwise.
const auto kNeedsRewriteEngine = doctest::skip(!agent::rewrite_engine_available());
}  // namespace

TEST_CASE("editor: profileCommand + a plain program: a warp-per-row winner is verified on the capture and offered" * kNeedsRewriteEngine) {
  EditorRun run = optimize_in_editor("matvec.cu", "matvec_rows", 6, "matvec", "matvec", [](const std::string& text) {
    agent::Candidate c = candidate("warp_per_row_matvec", "matvec_rows", "warp-per-row", warp_per_row(text));
    agent::LaunchChange change;
    change.kernel = "matvec_rows";
    change.thread_scale[0] = {32, 1};
    c.launch_changes = {change};
    return c;
  });
  INFO(run.result.dump(2));
  // The program's launches were captured through profileCommand.
  REQUIRE(run.captures.size() == 1);
  CHECK(run.captures[0].program == std::vector<std::string>{"/bin/sh", "-c", "./app"});
  REQUIRE(run.result["rewrites"].size() == 1);
  const json& best = run.result["rewrites"][0];
  const std::string title = best["title"];
  CHECK(title.find("Apply verified rewrite: ") == 0);
  CHECK(title.find("× faster (level 2, correct on 7 input sets on Test GPU): warp-per-row()") != std::string::npos);
  CHECK(apply(run.text, best["edit"]) == warp_per_row(run.text));  // the edit makes the candidate of the saved file
  // The report states what ran: the original's 8 blocks, the candidate's 256.
  const std::string report = read(run.result["report"].get<std::string>());
  CHECK(report.find("- replayed: set 0 (captured launch 0): grid (8,1,1) block (128,1,1) -> grid (256,1,1) block "
                    "(128,1,1)") != std::string::npos);
  CHECK(report.find("- replayed: set 1 (captured launch 1): grid (2,1,1) block (64,1,1) -> grid (64,1,1) block "
                    "(64,1,1)") != std::string::npos);
}

TEST_CASE("editor: a swapped-mapping winner is offered, replayed with swapped grid and block" * kNeedsRewriteEngine) {
  EditorRun run = optimize_in_editor("matmul_rowx.cu", "matmul_naive_rowx", 5, "matmul_rowx", "matmul_rowx",
                                     [](const std::string& text) {
                                       agent::Candidate c = candidate("swapped_matmul_rowx", "matmul_naive_rowx",
                                                                      "swap-thread-mapping", swapped(text));
                                       agent::LaunchChange change;
                                       change.kernel = "matmul_naive_rowx";
                                       change.swap_xy = true;
                                       c.launch_changes = {change};
                                       return c;
                                     });
  INFO(run.result.dump(2));
  REQUIRE(run.result["rewrites"].size() == 1);
  const json& best = run.result["rewrites"][0];
  CHECK(best["title"].get<std::string>().find("(level 2, correct on 7 input sets on Test GPU): swap-thread-mapping()") !=
        std::string::npos);
  CHECK(apply(run.text, best["edit"]) == swapped(run.text));
  const std::string report = read(run.result["report"].get<std::string>());
  CHECK(report.find("- replayed: set 0 (captured launch 0): grid (3,5,1) block (16,16,1) -> grid (5,3,1) block "
                    "(16,16,1)") != std::string::npos);
}

TEST_CASE("editor: a fused winner: the pair is captured when the candidate needs it, then offered" * kNeedsRewriteEngine) {
  EditorRun run = optimize_in_editor("elementwise_chain.cu", "bias_relu", 10, "elementwise_chain_consumer_only",
                                     "elementwise_chain", [](const std::string& text) {
                                       agent::Candidate c =
                                           candidate("fused_mul_bias_relu", "bias_relu", "fuse-elementwise", fused(text));
                                       c.result_kernel = "mul_bias_relu_fused";
                                       c.fusion = agent::parse_fusion_declaration(
                                           "// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu "
                                           "params=A0,A1,A2,A3,B1,B2,B3 elides=A2");
                                       return c;
                                     });
  INFO(run.result.dump(2));
  // The kernel's own launches first; the producer's too only once the fused candidate asked.
  REQUIRE(run.captures.size() == 2);
  CHECK(run.captures[0].max_launches_per_kernel == 0);
  CHECK(run.captures[1].max_launches_per_kernel == 3);
  CHECK(run.captures[1].kernel_regex.find("mul[<(]") != std::string::npos);
  REQUIRE(run.result["rewrites"].size() == 1);
  const json& best = run.result["rewrites"][0];
  CHECK(best["title"].get<std::string>().find("(level 2, correct on 5 input sets on Test GPU): fuse-elementwise()") !=
        std::string::npos);
  CHECK(apply(run.text, best["edit"]) == fused(run.text));
  const std::string report = read(run.result["report"].get<std::string>());
  CHECK(report.find("- replayed: set 0 (captured launches 0+1): grid (256,1,1) block (256,1,1) then grid (256,1,1) "
                    "block (256,1,1) -> grid (256,1,1) block (256,1,1)") != std::string::npos);
}
