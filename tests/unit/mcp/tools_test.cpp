// The MCP tools over fake engine services: what each returns (checked
// against its own outputSchema), the refusals (outside the root, no capture,
// no GPU, unverified or changed candidates), and that apply_rewrite writes
// exactly the verified text. The real verifier behind the real binary is
// tests/mcp/ (fake CUDA driver) and tests/gpu/ (the H200).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent/text_diff.h"
#include "mcp/argument_check.h"
#include "mcp/tool_env.h"
#include "tests/unit/mcp/mcp_test_support.h"

using namespace warplens;
using namespace warplens::mcp;
using namespace warplens::mcp::test;
namespace fs = std::filesystem;

namespace {

const char* kSource =
    "__global__ void scale(float* x, int n) {\n"
    "  int i = threadIdx.x;\n"
    "  if (i < n) x[i * 32] *= 2.0f;\n"
    "}\n"
    "__global__ void other(float* y) { y[0] = 1.0f; }\n";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Fixture {
  TempDir root, outside;
  Recorder recorder;
  std::vector<verifier::VerifyRequest> verify_requests;
  std::vector<std::string> verified_texts;
  int level = 2;
  verifier::VerdictStatus status = verifier::VerdictStatus::Verified;
  std::string verify_error;
  std::function<workflows::OptimizeOutcome(const agent::OptimizeRequest&)> optimize;
  std::unique_ptr<ToolEnv> env;
  std::unique_ptr<Session> session;
  int next_id = 100;

  explicit Fixture(WorkspaceConfig config = {}) {
    root.write("src/k.cu", kSource);
    root.write(".warplens/capture/manifest.json", "{}");
    outside.write("secret.cu", kSource);
    ToolServices s;
    s.analyze = [](const SourceFile& f, const AnalysisOptions&, bool, std::stop_token) {
      workflows::FileAnalysis a;
      a.result.parsed = true;
      a.result.file = f.path;
      a.result.model.file = f.path;
      Function scale;
      scale.name = "scale";
      scale.key = "scale(float *, int)";
      scale.range = {{0, 0}, {4, 0}};
      Function other;
      other.name = "other";
      other.key = "other(float *)";
      other.range = {{4, 0}, {4, 48}};
      a.result.model.functions = {scale, other};
      Finding f1;
      f1.code = "uncoalesced-global-access";
      f1.severity = Severity::Warning;
      f1.location = {f.path, {{2, 13}, {2, 21}}};
      f1.message = "x[i * 32]: 32 sectors per request (ideal 4)";
      f1.data.set("sectorsPerRequest", 32.0);
      f1.kernel = scale.key;
      Finding f2;
      f2.code = "low-occupancy";
      f2.severity = Severity::Information;
      f2.location = {f.path, {{4, 16}, {4, 21}}};
      f2.message = "other: 1 warp per block";
      f2.kernel = other.key;
      a.result.findings = {f1, f2};
      a.resources_skipped = "test";
      return a;
    };
    s.verify = [this](const verifier::VerifyRequest& r, std::stop_token, const verifier::ProgressCallback& progress) {
      verify_requests.push_back(r);
      verified_texts.push_back(read(r.candidate_source));
      if (progress) progress({"compile", 0.1});
      if (progress) progress({"candidate", 0.6});
      verifier::Verdict v;
      v.status = status;
      v.error = verify_error;
      v.level = v.measured_level = level;
      v.correct = level >= 1;
      v.speedup = level >= 2 ? 1.8 : 1.0;
      v.kernel = r.kernel;
      v.reasons = {level >= 2 ? "correct on 5 input sets, 1.80x faster" : "correct, not faster"};
      v.device.name = "fake GPU";
      return v;
    };
    s.probe = [](std::stop_token) {
      profile::GpuStatus st;
      st.available = false;
      st.reason = "no NVIDIA GPU found (test)";
      return st;
    };
    s.optimize = [this](const agent::OptimizeRequest& r, const workflows::OptimizeContext&,
                        const agent::ProgressCallback& progress, std::stop_token) {
      if (progress) progress(agent::JobProgress{1, 0, 0, 0, 0, 0, 0, "verifying c01"});
      if (!optimize) throw workflows::OptimizeUnavailable("no usable CUDA GPU: no NVIDIA GPU found (test)");
      return optimize(r);
    };
    s.capture = [](const verifier::CaptureRequest&, std::stop_token) { return verifier::CaptureRunResult{}; };
    config.root = root.path();
    ToolOptions options;
    options.docs_dir = "";
    env = std::make_unique<ToolEnv>(config, options, s);
    session = std::make_unique<Session>(ServerInfo{}, make_tools(*env), recorder.writer());
    initialize(*session, recorder);
  }

  // The tools/call result, or the JSON-RPC error. A success is checked
  // against the tool's outputSchema; an error must carry no
  // structuredContent (clients validate it against that schema too) and
  // its kind and message in the text and in _meta.
  json call(const std::string& name, const json& args, const json& meta = nullptr) {
    int id = next_id++;
    json params = {{"name", name}, {"arguments", args}};
    if (!meta.is_null()) params["_meta"] = meta;
    session->handle(request(id, "tools/call", params));
    json m = recorder.response(id);
    REQUIRE(!m.is_null());
    if (m.contains("error")) return m;
    json result = m["result"];
    if (!result.value("isError", false)) {
      for (const auto& t : session->tools())
        if (t.name == name) CHECK(check_arguments(t.output_schema, result["structuredContent"], "structuredContent") == "");
    } else {
      CHECK_FALSE(result.contains("structuredContent"));
      const json details = result.value("_meta", json::object()).value("warplens/error", json::object());
      CHECK(details.value("kind", json()).is_string());
      CHECK(details.value("message", json()).is_string());
      CHECK(result["content"] == json::array({{{"type", "text"},
                                               {"text", "error (" + details.value("kind", std::string()) + "): " +
                                                            details.value("message", std::string())}}}));
    }
    return result;
  }
};

std::string error_kind(const json& result) {
  CHECK(result.value("isError", false));
  return result.value("_meta", json::object()).value("warplens/error", json::object()).value("kind", std::string());
}

}  // namespace

TEST_CASE("mcp tools: every tool has a supported input schema, an output schema and a description") {
  Fixture f;
  std::vector<std::string> names;
  for (const auto& t : f.session->tools()) {
    names.push_back(t.name);
    CHECK(check_schema_supported(t.input_schema) == "");
    CHECK(t.input_schema["type"] == "object");
    CHECK(t.output_schema["type"] == "object");
    CHECK(t.description.size() > 80);
  }
  CHECK(names == std::vector<std::string>{"analyze", "kernel_report", "verify", "apply_rewrite", "profile", "capture",
                                          "optimize"});
}

TEST_CASE("mcp analyze: diagnostics with code, range, numbers; one kernel's only") {
  Fixture f;
  json all = f.call("analyze", {{"file", "src/k.cu"}});
  CHECK(all["structuredContent"]["kernels"] == json{"other", "scale"});
  CHECK(all["structuredContent"]["diagnostics"].size() == 2);
  json one = f.call("analyze", {{"file", "src/k.cu"}, {"kernel", "scale"}});
  CHECK(one["structuredContent"]["diagnostics"] ==
        json::array({{{"code", "uncoalesced-global-access"},
                      {"severity", "warning"},
                      {"source", "warplens"},
                      {"message", "x[i * 32]: 32 sectors per request (ideal 4)"},
                      {"file", (f.root.path() / "src/k.cu").string()},
                      {"range", {{"start", {{"line", 2}, {"character", 13}}}, {"end", {{"line", 2}, {"character", 21}}}}},
                      {"numbers", {{"sectorsPerRequest", 32.0}}},
                      {"kernel", "scale(float *, int)"}}}));
  CHECK(one["content"][0]["text"] ==
        "src/k.cu:3:14: warning: x[i * 32]: 32 sectors per request (ideal 4) [uncoalesced-global-access]\n"
        "1 diagnostic(s) in kernel scale in src/k.cu\n");
  json missing = f.call("analyze", {{"file", "src/k.cu"}, {"kernel", "nope"}});
  CHECK(error_kind(missing) == "not-found");
  CHECK(missing["content"][0]["text"] == "error (not-found): no kernel named `nope` in src/k.cu (kernels: other, scale)");
}

TEST_CASE("mcp tools: paths outside the root are refused, symlinks included") {
  Fixture f;
  fs::create_symlink(f.outside.path() / "secret.cu", f.root.path() / "link.cu");
  fs::create_symlink(f.outside.path(), f.root.path() / "linkdir");
  fs::create_symlink(f.root.path() / "src/k.cu", f.root.path() / "inner.cu");
  for (const std::string& p : {(f.outside.path() / "secret.cu").string(), std::string("../") +
                                  f.outside.path().filename().string() + "/secret.cu",
                              std::string("link.cu"), std::string("linkdir/secret.cu"), std::string("src/../../x.cu")}) {
    CAPTURE(p);
    json r = f.call("analyze", {{"file", p}});
    CHECK(error_kind(r) == "outside-root");
    CHECK(r["content"][0]["text"].get<std::string>().find("outside the workspace root") != std::string::npos);
  }
  CHECK_FALSE(f.call("analyze", {{"file", "inner.cu"}}).value("isError", false));
  CHECK(error_kind(f.call("analyze", {{"file", "src/none.cu"}})) == "not-found");
  CHECK(error_kind(f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", "x"},
                                      {"capture", f.outside.path().string()}})) == "outside-root");
  CHECK(f.verify_requests.empty());
}

TEST_CASE("mcp verify: the server's limits, the candidate outside the workspace, the verdict and its id") {
  Fixture f;
  std::string candidate = std::string(kSource) + "// faster\n";
  json r = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", candidate},
                             {"block", {128}}},
                  {{"progressToken", 5}});
  json s = r["structuredContent"];
  CHECK(s["candidate_id"] == "c1");
  CHECK(s["candidate_hash"].get<std::string>().size() == 16);
  CHECK(s["level"] == 2);
  CHECK(s["applicable"] == true);
  CHECK(s["limits"]["input_sets"] == 5);
  CHECK(s["limits"]["timed_runs"] == 30);
  REQUIRE(f.verify_requests.size() == 1);
  const auto& req = f.verify_requests[0];
  CHECK(req.input_sets == 5);
  CHECK(req.kernel == "scale");
  CHECK(req.capture_dir == f.root.path() / ".warplens/capture");
  CHECK(req.original_source == f.root.path() / "src/k.cu");
  CHECK_FALSE(is_within(req.candidate_source, f.root.path()));  // nothing written into the workspace
  CHECK(f.verified_texts[0] == candidate);
  CHECK(req.candidate_launch.block == verifier::Dim3{128, 1, 1});
  CHECK(req.include_dirs == std::vector<std::string>{(f.root.path() / "src").string()});
  auto progress = f.recorder.notifications("notifications/progress");
  REQUIRE(progress.size() == 3);
  CHECK(progress[0]["params"] == json{{"progressToken", 5}, {"progress", 0}, {"total", 100}, {"message", "waiting for the GPU"}});
  CHECK(progress[2]["params"]["message"] == "candidate");
  // The agent cannot pass the verifier's limits.
  json bad = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", "x"}, {"input_sets", 1}});
  CHECK(bad["error"]["code"] == -32602);
}

TEST_CASE("mcp verify: no capture, no GPU and build failures are tool errors") {
  Fixture f;
  fs::remove_all(f.root.path() / ".warplens");
  json r = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", "x"}});
  CHECK(error_kind(r) == "no-capture");
  f.root.write(".warplens/capture/manifest.json", "{}");
  f.status = verifier::VerdictStatus::Error;
  f.verify_error = "no usable CUDA GPU: cuInit failed";
  r = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", "x"}});
  CHECK(error_kind(r) == "no-gpu");
  CHECK(r["_meta"]["warplens/error"]["verdict"]["error"] == "no usable CUDA GPU: cuInit failed");
  CHECK(r["content"][0]["text"] == "error (no-gpu): verification could not run: no usable CUDA GPU: cuInit failed");
}

TEST_CASE("mcp apply_rewrite: only a level >= 2 candidate with its own hash, on the unchanged file") {
  Fixture f;
  const fs::path file = f.root.path() / "src/k.cu";
  std::string faster = std::string(kSource) + "// faster\n";
  f.level = 1;
  json slow = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", faster + "// slow\n"}})["structuredContent"];
  f.level = 2;
  json good = f.call("verify", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"candidate_source", faster}})["structuredContent"];

  json r = f.call("apply_rewrite", {{"candidate_id", slow["candidate_id"]}, {"candidate_hash", slow["candidate_hash"]}});
  CHECK(error_kind(r) == "refused");
  CHECK(r["content"][0]["text"] ==
        "error (refused): candidate c1 was not verified at level >= 2 (level 1: correct, not faster); only a correct "
        "and faster candidate is applied");
  r = f.call("apply_rewrite", {{"candidate_id", "c9"}, {"candidate_hash", good["candidate_hash"]}});
  CHECK(error_kind(r) == "refused");
  r = f.call("apply_rewrite", {{"candidate_id", good["candidate_id"]}, {"candidate_hash", slow["candidate_hash"]}});
  CHECK(error_kind(r) == "refused");
  CHECK(read(file) == kSource);

  SUBCASE("applied") {
    r = f.call("apply_rewrite", {{"candidate_id", good["candidate_id"]}, {"candidate_hash", good["candidate_hash"]}});
    CHECK(r["structuredContent"]["applied"] == true);
    CHECK(r["structuredContent"]["file"] == "src/k.cu");
    CHECK(read(file) == faster);
    // Applying it again: the file is no longer the text it was verified against.
    r = f.call("apply_rewrite", {{"candidate_id", good["candidate_id"]}, {"candidate_hash", good["candidate_hash"]}});
    CHECK(error_kind(r) == "refused");
    CHECK(read(file) == faster);
  }
  SUBCASE("the file changed since") {
    f.root.write("src/k.cu", std::string(kSource) + "// edited by the user\n");
    r = f.call("apply_rewrite", {{"candidate_id", good["candidate_id"]}, {"candidate_hash", good["candidate_hash"]}});
    CHECK(error_kind(r) == "refused");
    CHECK(r["content"][0]["text"] ==
          "error (refused): src/k.cu changed since candidate c2 was verified; verify it again against the current text");
    CHECK(read(file) == std::string(kSource) + "// edited by the user\n");
  }
}

TEST_CASE("mcp profile, capture, optimize: no GPU and no configured command are tool errors") {
  Fixture f;
  f.root.write("app.cu", "__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n");
  json r = f.call("profile", {{"file", "app.cu"}});
  CHECK(error_kind(r) == "no-gpu");
  CHECK(error_kind(f.call("profile", {{"file", "src/k.cu"}})) == "refused");  // no main()
  CHECK(error_kind(f.call("profile", {{"use_profile_command", true}})) == "refused");
  CHECK(error_kind(f.call("profile", json::object())) == "refused");
  CHECK(error_kind(f.call("capture", {{"kernel", "scale"}})) == "no-capture");
  r = f.call("optimize", {{"file", "src/k.cu"}, {"kernel", "scale"}}, {{"progressToken", "opt"}});
  CHECK(error_kind(r) == "no-gpu");
  CHECK(f.recorder.notifications("notifications/progress").size() == 2);
}

TEST_CASE("mcp profile: a recorded profile needs no GPU") {
  Fixture f;
  fs::path recorded = fs::path(WARPLENS_SOURCE_DIR) / "tests/fixtures/profile/transpose.json";
  fs::copy_file(recorded, f.root.path() / "p.json");
  json r = f.call("profile", {{"recorded_profile", "p.json"}});
  CHECK_FALSE(r.value("isError", false));
  CHECK(r["structuredContent"]["kernels"].size() >= 1);
  CHECK(r["structuredContent"]["origin"].get<std::string>().find("recorded profile") != std::string::npos);
}

TEST_CASE("mcp optimize: winners become candidates apply_rewrite accepts") {
  Fixture f;
  std::string faster = std::string(kSource) + "// tiled\n";
  f.optimize = [&](const agent::OptimizeRequest& r) {
    CHECK(r.budget.max_candidates == 4);  // the agent asked for less than the server allows
    workflows::OptimizeOutcome o;
    o.gpu_name = "fake GPU";
    agent::Offer offer;
    offer.candidate_id = "c01";
    offer.plan = "pad-shared(pad=1)";
    offer.full_text = faster;
    offer.edits = agent::minimal_edits(r.file.text, faster);
    offer.base_text_hash = agent::text_hash(r.file.text);
    offer.speedup = 2.0;
    offer.level = agent::RewardLevel::Faster;
    offer.input_sets = 5;
    o.result.offers = {offer};
    agent::TriedCandidate tried;
    tried.candidate.id = "c01";
    tried.verdict.level = agent::RewardLevel::Faster;
    tried.verdict.speedup = 2.0;
    tried.verdict.correct = true;
    tried.verdict.compiled = true;
    tried.verdict.input_sets = 5;
    o.result.tried = {tried};
    o.result.summary = "1 verified winner";
    return o;
  };
  json r = f.call("optimize", {{"file", "src/k.cu"}, {"kernel", "scale"}, {"max_candidates", 4}});
  json winners = r["structuredContent"]["winners"];
  INFO(r.dump(2));
  REQUIRE(winners.size() == 1);
  CHECK(winners[0]["level"] == 2);
  json a = f.call("apply_rewrite", {{"candidate_id", winners[0]["candidate_id"]}, {"candidate_hash", winners[0]["candidate_hash"]}});
  CHECK(a["structuredContent"]["applied"] == true);
  CHECK(read(f.root.path() / "src/k.cu") == faster);
}

// A FIFO in the workspace given as a tool's file: it was opened with an
// ifstream, which waits for a writer, so the call never answered (and the
// session could not shut down). Only regular files are read now, and the
// refusal comes at once.
TEST_CASE("mcp tools: a FIFO given as a file is refused within a second, never read") {
  Fixture f;
  const fs::path fifo = f.root.path() / "src" / "pipe.cu";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::vector<std::pair<std::string, json>> calls = {
      {"analyze", {{"file", "src/pipe.cu"}}},
      {"kernel_report", {{"file", "src/pipe.cu"}}},
      {"optimize", {{"file", "src/pipe.cu"}, {"kernel", "scale"}}},
      {"verify", {{"file", "src/pipe.cu"}, {"kernel", "scale"}, {"candidate_source", "x"}}},
      {"profile", {{"file", "src/pipe.cu"}}},
  };
  for (const auto& [tool, args] : calls) {
    CAPTURE(tool);
    const int id = f.next_id++;
    const auto start = std::chrono::steady_clock::now();
    f.session->handle(request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
    json m = f.recorder.response(id, std::chrono::seconds(1));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (m.is_null()) {
      // Before the fix: the tool is blocked opening the FIFO. A writer that
      // opens and closes it ends that read, so the test fails, not hangs.
      for (int i = 0; i < 100; ++i) {
        int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (w >= 0) {
          ::close(w);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      f.recorder.response(id, std::chrono::seconds(5));
    }
    REQUIRE_MESSAGE(!m.is_null(), tool << " did not answer within a second");
    CHECK(elapsed < std::chrono::seconds(1));
    REQUIRE(m.contains("result"));
    CHECK(error_kind(m["result"]) == "refused");
    const std::string text = m["result"]["content"][0]["text"].get<std::string>();
    CHECK(text.find("not a regular file") != std::string::npos);
    CHECK(text.find("FIFO") != std::string::npos);
  }
}
