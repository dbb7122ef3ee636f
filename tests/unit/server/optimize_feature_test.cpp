// "Optimize this kernel" in the server (server/optimize_feature.cpp), in
// process and without a GPU: the real agent::run_optimize_job loop runs
// with a scripted policy and a scripted verifier (the backend is injected
// through ServerOptions::optimize), so the gate that decides what reaches
// the editor is the production one. Covers: verified winners as versioned
// WorkspaceEdits and as refactor.rewrite code actions; losers, incorrect and
// implausible candidates never offered; cancellation (-32800, progress
// ended); an edit during the job (no rewrites); no GPU (a clear error).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <atomic>
#include <thread>

#include "agent/rewrite_engine.h"
#include "profiler/gpu_probe.h"
#include "server_harness.h"
#include "tests/support/agent_requirements.h"

using namespace warplens;
using namespace warplens::testing;
using warplens::test::needs;

namespace {

const std::string kUri = "file:///src/scale.cu";
const std::string kText =
    "__global__ void scale(float* out, const float* in, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = 2.0f * in[i];\n"
    "}\n"
    "__global__ void other(float* p) { p[threadIdx.x] = 0; }\n";

KernelModel model() {
  auto kernel = [](const std::string& name, Range range, Range name_range) {
    Function f;
    f.name = name;
    f.key = name;
    f.kind = FunctionKind::Kernel;
    f.range = range;
    f.name_range = name_range;
    f.body_range = range;
    return f;
  };
  KernelModel m;
  m.functions = {kernel("scale", {{0, 0}, {3, 1}}, {{0, 16}, {0, 21}}),
                 kernel("other", {{4, 0}, {4, 55}}, {{4, 16}, {4, 21}})};
  return m;
}

const std::string kOld = "2.0f * in[i]";
const int kOldColumn = static_cast<int>(std::string("  if (i < n) out[i] = ").size());

// A candidate that replaces `2.0f * in[i]` on line 2, and what the verifier says of it.
struct Scripted {
  std::string replacement;
  agent::RewardLevel level;
  double speedup;
  bool correct = true;
  bool implausible = false;
};

agent::Candidate candidate_for(const Scripted& s, int index) {
  agent::Candidate c;
  c.id = "c" + std::to_string(index);
  c.kernel = c.result_kernel = "scale";
  c.policy = "test";
  c.plan = {agent::RewriteStep{"test-rewrite", {{"variant", index}}}};
  c.description = s.replacement;
  c.source = kText;
  c.source.replace(c.source.find(kOld), kOld.size(), s.replacement);
  c.edits = {TextEdit{{{2, kOldColumn}, {2, kOldColumn + static_cast<int>(kOld.size())}}, s.replacement}};
  return c;
}

class ScriptedPolicy : public agent::Policy {
 public:
  explicit ScriptedPolicy(std::vector<Scripted> s) : scripted_(std::move(s)) {}
  std::string name() const override { return "scripted"; }
  std::vector<agent::Candidate> propose(const agent::PolicyContext&, int, std::stop_token) override {
    if (done_) return {};
    done_ = true;
    std::vector<agent::Candidate> out;
    for (std::size_t i = 0; i < scripted_.size(); ++i) out.push_back(candidate_for(scripted_[i], static_cast<int>(i) + 1));
    return out;
  }

 private:
  std::vector<Scripted> scripted_;
  bool done_ = false;
};

// Verdicts by the candidate's description (its replacement text). Blocks
// while `gate` is closed (honouring stop, as the real verifiers do).
class ScriptedVerifier : public agent::CandidateVerifier {
 public:
  ScriptedVerifier(std::vector<Scripted> s, std::shared_ptr<std::atomic<bool>> gate)
      : scripted_(std::move(s)), gate_(std::move(gate)) {}
  std::string name() const override { return "scripted"; }
  agent::CandidateVerdict verify(const agent::Candidate& c, std::stop_token stop) override {
    agent::CandidateVerdict v;
    v.candidate_id = c.id;
    while (gate_ && !*gate_) {
      if (stop.stop_requested()) {
        v.reason = "cancelled";
        return v;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (const auto& s : scripted_) {
      if (s.replacement != c.description) continue;
      v.compiled = true;
      v.correct = s.correct;
      v.input_sets = 5;
      v.original = {1.0, 0.9, 1.1, 30};
      v.candidate = {1.0 / s.speedup, 0.9 / s.speedup, 1.1 / s.speedup, 30};
      v.speedup = s.speedup;
      v.level = s.level;
      v.implausible = s.implausible;
    }
    return v;
  }

 private:
  std::vector<Scripted> scripted_;
  std::shared_ptr<std::atomic<bool>> gate_;
};

const std::vector<Scripted> kMixed = {
    {"in[i] + in[i]", agent::RewardLevel::Faster, 1.5},
    {"in[i] * 2.0f", agent::RewardLevel::Correct, 1.02},               // correct, not faster
    {"in[i]", agent::RewardLevel::Incorrect, 4.0, false},               // fast and wrong
    {"__fmul_rn(2.0f, in[i])", agent::RewardLevel::Faster, 3.1},
    {"0.0f", agent::RewardLevel::Faster, 40.0, true, true},             // implausible
};

server::ServerOptions options_with(std::vector<Scripted> scripted, std::shared_ptr<std::atomic<bool>> gate = nullptr) {
  server::ServerOptions o = fast_options();
  o.optimize = [scripted, gate](const agent::OptimizeRequest& req, const workflows::OptimizeContext&,
                                const agent::ProgressCallback& progress,
                                std::stop_token stop) {
    ScriptedPolicy policy(scripted);
    ScriptedVerifier verifier(scripted, gate);
    workflows::OptimizeOutcome out;
    out.gpu_name = "Test GPU";
    out.result = agent::run_optimize_job(req, policy, verifier, nullptr, progress, stop);
    return out;
  };
  return o;
}

struct Session {
  ServerHarness h;
  explicit Session(server::ServerOptions o) : h(std::move(o)) {
    h.engine.set_model(model());
    h.notify("textDocument/didOpen", did_open(kUri, 1, kText));
    h.wait_notification("textDocument/publishDiagnostics");
  }
  int send_optimize(json argument) {
    return h.send_request("workspace/executeCommand",
                          {{"command", "warplens.optimize"}, {"arguments", json::array({argument})}});
  }
  json optimize(json argument) { return h.wait_response(send_optimize(std::move(argument))); }
  json code_actions(int line, int character) {
    return h.request("textDocument/codeAction",
                     {{"textDocument", text_document(kUri)},
                      {"range", range(line, character, line, character)},
                      {"context", {{"diagnostics", json::array()}}}})["result"];
  }
  std::vector<json> rewrite_actions(int line, int character) {
    std::vector<json> out;
    for (const auto& a : code_actions(line, character))
      if (a.value("kind", "") == "refactor.rewrite") out.push_back(a);
    return out;
  }
  void change(int version) {
    std::string text = kText + "// edited\n";
    h.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", version}}},
                                        {"contentChanges", json::array({{{"text", text}}})}});
  }
};

json at_kernel_body() { return {{"uri", kUri}, {"position", position(1, 4)}}; }

}  // namespace

TEST_CASE("warplens.optimize is advertised; warplens.previewRewrite (the client's) is not") {
  ServerHarness h(fast_options(), false);
  json caps = h.initialize()["result"]["capabilities"];
  auto commands = caps["executeCommandProvider"]["commands"];
  CHECK(std::find(commands.begin(), commands.end(), "warplens.optimize") != commands.end());
  CHECK(std::find(commands.begin(), commands.end(), "warplens.previewRewrite") == commands.end());
  auto kinds = caps["codeActionProvider"]["codeActionKinds"];
  CHECK(std::find(kinds.begin(), kinds.end(), "refactor.rewrite") != kinds.end());
}

TEST_CASE("verified winners come back best first as versioned WorkspaceEdits, and as code actions") {
  // Reports land in the cache directory; keep this test's out of $HOME.
  const auto cache = std::filesystem::temp_directory_path() / "warplens-optimize-feature-test-cache";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  Session s(options_with(kMixed));
  json r = s.optimize(at_kernel_body());
  REQUIRE_MESSAGE(r.contains("result"), r.dump());
  const json& result = r["result"];
  INFO(result.dump(2));
  CHECK(result["kernel"] == "scale");
  CHECK(result["summary"].get<std::string>().find("2 verified rewrites") != std::string::npos);
  REQUIRE(result["rewrites"].size() == 2);  // not the loser, the incorrect one or the implausible one
  const json& best = result["rewrites"][0];
  CHECK(best["title"] ==
        "Apply verified rewrite: 3.1× faster (level 2, correct on 5 input sets on Test GPU): test-rewrite(variant=4)");
  CHECK(result["rewrites"][1]["title"] ==
        "Apply verified rewrite: 1.5× faster (level 2, correct on 5 input sets on Test GPU): test-rewrite(variant=1)");
  // The full report (every candidate, losers included) is one click away.
  REQUIRE(result.contains("report"));
  const std::string report = result["report"].get<std::string>();
  CHECK(result["summary"].get<std::string>().find("Full report: " + report) != std::string::npos);
  {
    std::ifstream in(report);
    REQUIRE(in);
    const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(md.find("in[i] * 2.0f") != std::string::npos);  // the correct-but-not-faster one is reported, not offered
  }
  CHECK(best["summary"].get<std::string>().find("correct on 5 input sets") != std::string::npos);
  const json& change = best["edit"]["documentChanges"][0];
  CHECK(change["textDocument"]["uri"] == kUri);
  CHECK(change["textDocument"]["version"] == 1);
  CHECK(change["edits"][0]["newText"] == "__fmul_rn(2.0f, in[i])");
  CHECK(change["edits"][0]["range"] == range(2, kOldColumn, 2, kOldColumn + static_cast<int>(kOld.size())));
  CHECK_FALSE(best["edit"].contains("changes"));

  SUBCASE("code actions on the kernel carry the same rewrites through warplens.previewRewrite") {
    auto actions = s.rewrite_actions(2, 5);
    REQUIRE(actions.size() == 2);
    CHECK(actions[0]["title"] == best["title"]);
    CHECK(actions[0]["command"]["command"] == "warplens.previewRewrite");
    CHECK(actions[0]["command"]["arguments"][0] == best);
    CHECK_FALSE(actions[0].contains("edit"));  // applied only through the preview
    CHECK(s.rewrite_actions(4, 30).empty());   // another kernel
  }
  SUBCASE("every kernel also offers \"Optimize kernel\" through the client's job UI") {
    std::vector<json> optimize;
    for (const auto& a : s.code_actions(2, 5))
      if (a.value("kind", "") == "refactor") optimize.push_back(a);
    REQUIRE(optimize.size() == 1);
    CHECK(optimize[0]["title"] == "Optimize kernel `scale` (rewrites verified on the GPU)");
    CHECK(optimize[0]["command"]["command"] == "warplens.optimizeKernel");
    CHECK(optimize[0]["command"]["arguments"][0] == json{{"uri", kUri}, {"kernel", "scale"}});
  }
  SUBCASE("an edit retires them") {
    s.change(2);
    s.h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 2; });
    CHECK(s.rewrite_actions(2, 5).empty());
  }
}

TEST_CASE("nothing verified faster: a summary that says so, no rewrites, no code actions") {
  Session s(options_with({kMixed[1], kMixed[2], kMixed[4]}));
  json result = s.optimize({{"uri", kUri}, {"kernel", "scale"}, {"budget", 30}})["result"];
  INFO(result.dump(2));
  CHECK(result["rewrites"].empty());
  CHECK(result["summary"].get<std::string>().find("nothing beat the original") != std::string::npos);
  CHECK(s.rewrite_actions(2, 5).empty());
}

TEST_CASE("an edit during the job: no rewrites, and the summary says why") {
  auto gate = std::make_shared<std::atomic<bool>>(false);
  Session s(options_with(kMixed, gate));
  int id = s.send_optimize(at_kernel_body());
  s.h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
  s.change(2);
  s.h.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 2; });
  *gate = true;
  json result = s.h.wait_response(id)["result"];
  INFO(result.dump(2));
  CHECK(result["rewrites"].empty());
  CHECK(result["summary"].get<std::string>().find("changed while the job ran") != std::string::npos);
  CHECK(s.rewrite_actions(2, 5).empty());
}

TEST_CASE("cancelling the job answers RequestCancelled and ends the progress") {
  auto gate = std::make_shared<std::atomic<bool>>(false);  // never opened: the verifier waits for stop
  Session s(options_with(kMixed, gate));
  SUBCASE("$/cancelRequest") {
    int id = s.send_optimize(at_kernel_body());
    s.h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
    s.h.notify("$/cancelRequest", {{"id", id}});
    CHECK(s.h.wait_response(id)["error"]["code"] == -32800);
  }
  SUBCASE("warplens.cancelJob") {
    int id = s.send_optimize(at_kernel_body());
    s.h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
    s.h.request("workspace/executeCommand", {{"command", "warplens.cancelJob"}});
    CHECK(s.h.wait_response(id)["error"]["code"] == -32800);
  }
  s.h.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "end"; });
  CHECK(s.rewrite_actions(2, 5).empty());
}

TEST_CASE("bad arguments are refused before any job starts") {
  Session s(options_with(kMixed));
  CHECK(s.optimize({{"uri", kUri}})["error"]["code"] == -32602);                          // no target
  CHECK(s.optimize({{"uri", kUri}, {"position", position(0, 0)}, {"budget", -1}})["error"]["code"] == -32602);
  json none = s.optimize({{"uri", kUri}, {"kernel", "missing"}});
  CHECK(none["error"]["message"].get<std::string>().find("no kernel named `missing`") != std::string::npos);
  CHECK(s.optimize({{"uri", "file:///src/not-open.cu"}, {"kernel", "scale"}})["error"]["code"] == -32602);
}

server::ServerOptions with_fake_gpu() {
  server::ServerOptions o = fast_options();  // the real backend, on a machine that has a GPU
  o.gpu_probe = [](std::stop_token) {
    profile::GpuStatus g;
    g.available = true;
    g.devices.push_back(profile::GpuDevice{0, "Test GPU", 9, 0});
    return g;
  };
  return o;
}

// Both need the rewrite engine: without it the built-in policy is refused first.
TEST_CASE("the real backend gets the settings and the saved state: profileCommand with unsaved text is refused" *
          needs("rewrite-engine")) {
  Session s(with_fake_gpu());
  s.h.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"profileCommand", "./app"}}}}}});
  json r = s.optimize(at_kernel_body());  // kUri is not on disk: its text is not saved
  INFO(r.dump(2));
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["code"] == -32803);
  CHECK(r["error"]["message"].get<std::string>().find("save the file first") != std::string::npos);
  CHECK(s.rewrite_actions(2, 5).empty());
}

TEST_CASE("the real backend without profileCommand, on a file without main(): the error names the setting" *
          needs("rewrite-engine")) {
  Session s(with_fake_gpu());
  json r = s.optimize(at_kernel_body());
  INFO(r.dump(2));
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["message"].get<std::string>().find("warplens.profileCommand") != std::string::npos);
  CHECK(s.h.notifications("window/showMessage").empty());  // said once: by the error the editor shows
}

TEST_CASE("without a GPU the job fails with a clear message and offers nothing") {
  server::ServerOptions o = fast_options();  // the real backend...
  o.gpu_probe = [](std::stop_token) {        // ...on a machine without a GPU
    profile::GpuStatus g;
    g.reason = "no NVIDIA device files (/dev/nvidia*)";
    return g;
  };
  Session s(o);
  json r = s.optimize(at_kernel_body());
  INFO(r.dump(2));
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["code"] == -32803);
  const std::string message = r["error"]["message"];
  CHECK(message.find("nothing is offered") != std::string::npos);
  if (agent::rewrite_engine_available()) CHECK(message.find("no GPU") != std::string::npos);
  CHECK(s.h.notifications("window/showMessage").empty());  // said once: by the error the editor shows
  CHECK(s.rewrite_actions(2, 5).empty());
}
