// The real optimize backend's choices (workflows/optimize.h), without a
// GPU: a fake GPU probe, a fake capture runner and a fake job loop that
// records which policy and verifier it was given. The build command and the
// workspace folder are real (a temporary directory, /bin/sh).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <unistd.h>
#include <vector>

#include "agent/capture_verifier.h"
#include "agent/llm/llm_policy_factory.h"
#include "agent/rewrite_engine.h"
#include "tests/support/agent_requirements.h"
#include "workflows/optimize.h"

namespace warplens {
namespace {

namespace fs = std::filesystem;
using test::needs;

constexpr const char* kLibrary = R"(__global__ void scale(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}
)";
constexpr const char* kProgram = R"(#include <cstdio>
__global__ void scale(float* out, const float* in, int n) { out[0] = in[0] * 2.0f; }
int main() { return 0; }
)";

struct Workspace {
  fs::path dir = fs::temp_directory_path() / ("warplens-optimize-backend-" + std::to_string(::getpid()));
  Workspace() { fs::create_directories(dir); }
  ~Workspace() { fs::remove_all(dir); }
};

// The editor's settings the workflow reads (server/settings.h holds them all).
struct EditorSettings {
  std::string profile_command, build_command;
  workflows::LlmSettings llm;
};

// What the fakes saw.
struct Seen {
  std::vector<verifier::CaptureRequest> captures;
  std::optional<std::string> policy, verifier;
  bool tools = false;  // the loop was given policy tools
  bool verify_dir_in_capture = false;  // the verifier's work directory is inside the capture's scratch
  std::vector<std::string> messages;
  std::optional<std::string> pair_capture;  // what the capture verifier's pair capture gave (dir or error)
};

verifier::CaptureRunResult launches_captured(int n) {
  verifier::CaptureRunResult r;
  r.ok = true;
  r.manifest.emplace();
  for (int i = 0; i < n; ++i) {
    capture::LaunchRecord l;
    l.index = i;
    l.kernel = "_Z5scalePfPKfi";
    r.manifest->launches.push_back(l);
  }
  return r;
}

struct Fixture {
  Workspace ws;
  Seen seen;
  bool gpu = true;
  std::string api_key;
  verifier::CaptureRunResult capture_result = launches_captured(3);
  bool ask_pair = false;  // the fake loop asks the capture verifier for a (mul, scale) pair capture

  workflows::OptimizeBackend backend() { return workflows::gpu_optimize_backend(seams()); }

  workflows::GpuBackendOptions seams() {
    workflows::GpuBackendOptions o;
    o.probe = [this](std::stop_token) {
      profile::GpuStatus s;
      s.available = gpu;
      if (gpu) s.devices.push_back(profile::GpuDevice{0, "Fake GPU", 9, 0});
      else s.reason = "no NVIDIA driver";
      return s;
    };
    o.capture = [this](const verifier::CaptureRequest& r, std::stop_token) {
      seen.captures.push_back(r);
      return capture_result;
    };
    o.loop = [this](const agent::OptimizeRequest& req, agent::Policy& policy, agent::CandidateVerifier& verifier,
                    const agent::PolicyTools* tools, const agent::ProgressCallback&, std::stop_token) {
      seen.policy = policy.name();
      seen.tools = tools != nullptr && tools->compile_errors != nullptr;
      if (!seen.captures.empty())
        seen.verify_dir_in_capture = fs::is_directory(seen.captures.back().out_dir.parent_path() / "verify");
      seen.verifier = verifier.name();
      // A fused candidate's pair capture, as the capture verifier asks for it.
      auto* cv = dynamic_cast<agent::CaptureVerifier*>(&verifier);
      if (ask_pair && cv && cv->options().capture_pair) {
        std::string error;
        auto dir = cv->options().capture_pair("mul", "scale", error);
        seen.pair_capture = dir ? dir->string() : "error: " + error;
      }
      agent::OptimizeResult r;
      r.kernel = req.kernel;
      r.summary = "fake loop";
      return r;
    };
    o.llm_api_key = [this] { return api_key; };
    return o;
  }

  // Runs the backend on `text` saved as ws/kernel.cu; the error message, or
  // empty when it ran the loop.
  std::string run(const EditorSettings& settings, const char* text = kLibrary, bool saved = true) {
    const fs::path file = ws.dir / "kernel.cu";
    std::ofstream(file) << text;
    agent::OptimizeRequest req;
    req.file = SourceFile{file.string(), text};
    req.kernel = "scale";
    // As the language server maps its settings (server/optimize_feature.cpp).
    workflows::OptimizeContext ctx;
    ctx.names = workflows::SettingNames::editor();
    ctx.policy.llm = !settings.llm.endpoint.empty() || !settings.llm.model.empty();
    ctx.policy.llm_settings = settings.llm;
    ctx.verify.profile_command = settings.profile_command;
    ctx.verify.build_command = settings.build_command;
    ctx.verify.working_directory = ws.dir.string();
    ctx.verify.document_saved = saved;
    auto progress = [this](const agent::JobProgress& p) { seen.messages.push_back(p.message); };
    try {
      workflows::OptimizeOutcome out = backend()(req, ctx, progress, {});
      CHECK(out.gpu_name == "Fake GPU");
      return {};
    } catch (const workflows::OptimizeUnavailable& e) {
      return e.what();
    }
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

EditorSettings with_profile_command(std::string build = {}) {
  EditorSettings s;
  s.profile_command = "./app --small";
  s.build_command = std::move(build);
  return s;
}

}  // namespace

TEST_CASE("the capture regex matches the kernel's demangled names, and only its") {
  const std::regex re(workflows::kernel_name_regex("scale"), std::regex::ECMAScript);
  for (const char* yes : {"scale(float*, float const*, int)", "void scale<float>(float*, int)", "ns::scale(float*)",
                          "scale"})
    CHECK_MESSAGE(std::regex_search(std::string(yes), re), yes);
  for (const char* no : {"rescale(float*)", "scale2(float*)", "void scale_rows<4>(float*)", "_Z5scalePfPKfi",
                         "scaled"})
    CHECK_MESSAGE(!std::regex_search(std::string(no), re), no);
}

TEST_CASE("profileCommand set: build, capture the first launches in the workspace, verify by capture/replay" * needs("rewrite-engine")) {
  Fixture f;
  std::string error = f.run(with_profile_command("echo built > built.txt"));
  REQUIRE_MESSAGE(error.empty(), error);
  CHECK(fs::exists(f.ws.dir / "built.txt"));  // the build ran in the workspace folder
  REQUIRE(f.seen.captures.size() == 1);
  const verifier::CaptureRequest& c = f.seen.captures.front();
  CHECK(c.program == std::vector<std::string>{"/bin/sh", "-c", "./app --small"});
  CHECK(c.cwd == f.ws.dir);
  CHECK(c.max_launches == 3);
  CHECK(c.timeout_s > 0);
  CHECK(c.kernel_regex == workflows::kernel_name_regex("scale"));
  CHECK(!c.out_dir.empty());
  CHECK(f.seen.verifier == "capture/replay");
  CHECK(f.seen.policy == "builtin");
  CHECK(!f.seen.tools);
  CHECK(contains(f.seen.messages.at(0), "building: echo built"));
  CHECK(contains(f.seen.messages.at(1), "capturing the first 3 launches of `scale`"));
  CHECK(contains(f.seen.messages.at(2), "captured 3 launch(es)"));
}

TEST_CASE("profileCommand set: a fused candidate's pair is captured on demand, both kernels, without rebuilding" *
          needs("rewrite-engine")) {
  Fixture f;
  f.ask_pair = true;
  REQUIRE(f.run(with_profile_command("echo built >> built.txt")).empty());
  REQUIRE(f.seen.captures.size() == 2);  // the kernel's, then the pair's (asked by the verifier)
  const verifier::CaptureRequest& pair = f.seen.captures[1];
  CHECK(pair.kernel_regex == workflows::kernel_name_regex("scale") + "|" + workflows::kernel_name_regex("mul"));
  CHECK(pair.max_launches == 6);
  CHECK(pair.max_launches_per_kernel == 3);
  CHECK(pair.program == f.seen.captures[0].program);
  CHECK(pair.out_dir != f.seen.captures[0].out_dir);
  REQUIRE(f.seen.pair_capture);
  CHECK(*f.seen.pair_capture == pair.out_dir.string());
  std::ifstream built(f.ws.dir / "built.txt");
  std::string lines((std::istreambuf_iterator<char>(built)), std::istreambuf_iterator<char>());
  CHECK(lines == "built\n");  // built once
  CHECK(contains(f.seen.messages.back(), "capturing the first 3 launches of `scale` and `mul`"));
}

TEST_CASE("profileCommand set: the capture and verification directories are removed after the job" * needs("rewrite-engine")) {
  Fixture f;
  REQUIRE(f.run(with_profile_command()).empty());
  REQUIRE(f.seen.captures.size() == 1);
  CHECK(f.seen.verify_dir_in_capture);
  CHECK(!fs::exists(f.seen.captures.front().out_dir.parent_path()));
}

TEST_CASE("zero launches captured: the error quotes the refusals and the program's stderr" * needs("rewrite-engine")) {
  Fixture f;
  f.capture_result = launches_captured(0);
  f.capture_result.manifest->refusals.push_back({"scale(float*, float const*, int)", 0,
                                                 "a pointer argument is not a device allocation"});
  f.capture_result.process.err = "app: using 4 threads\n";
  std::string error = f.run(with_profile_command());
  CHECK(contains(error, "no launch of `scale` was captured from `./app --small`"));
  CHECK(contains(error, "a pointer argument is not a device allocation"));
  CHECK(contains(error, "app: using 4 threads"));
  CHECK(!f.seen.verifier);
}

TEST_CASE("zero launches and no refusal: the error says how many launches were seen" * needs("rewrite-engine")) {
  Fixture f;
  f.capture_result = launches_captured(0);
  f.capture_result.manifest->counters.driver_launches = 7;
  std::string error = f.run(with_profile_command());
  CHECK(contains(error, "7 kernel launch(es) seen, 0 of them `scale`"));
}

TEST_CASE("the capture could not run: its error is the message" * needs("rewrite-engine")) {
  Fixture f;
  f.capture_result = {};
  f.capture_result.error = "libwarplens_inject.so not found";
  std::string error = f.run(with_profile_command());
  CHECK(contains(error, "libwarplens_inject.so not found"));
  CHECK(!f.seen.verifier);
}

TEST_CASE("a failing build command: its stderr is quoted and nothing is captured" * needs("rewrite-engine")) {
  Fixture f;
  std::string error = f.run(with_profile_command("echo 'kernel.cu:3: error: oops' >&2; exit 3"));
  CHECK(contains(error, "the build command"));
  CHECK(contains(error, "kernel.cu:3: error: oops"));
  CHECK(f.seen.captures.empty());
}

TEST_CASE("profileCommand set and the document unsaved: save the file first, nothing runs" * needs("rewrite-engine")) {
  Fixture f;
  std::string error = f.run(with_profile_command("touch built.txt"), kLibrary, /*saved=*/false);
  CHECK(contains(error, "save the file first"));
  CHECK(f.seen.captures.empty());
  CHECK(!fs::exists(f.ws.dir / "built.txt"));
}

TEST_CASE("no profileCommand: a file with main() uses the self-checking program verifier" * needs("rewrite-engine")) {
  Fixture f;
  std::string error = f.run(EditorSettings{}, kProgram, /*saved=*/false);  // it verifies the editor's text
  REQUIRE_MESSAGE(error.empty(), error);
  CHECK(f.seen.verifier == "self-checking program");
  CHECK(f.seen.captures.empty());
}

TEST_CASE("no profileCommand and no main(): the error names warplens.profileCommand for both editors" * needs("rewrite-engine")) {
  Fixture f;
  std::string error = f.run(EditorSettings{});
  CHECK(contains(error, "warplens.profileCommand"));
  CHECK(contains(error, "VS Code"));
  CHECK(contains(error, "Neovim"));
  CHECK(!f.seen.verifier);
}

TEST_CASE("no GPU: refused before building or capturing" * needs("rewrite-engine")) {
  Fixture f;
  f.gpu = false;
  std::string error = f.run(with_profile_command("touch built.txt"));
  CHECK(contains(error, "no GPU"));
  CHECK(contains(error, "no NVIDIA driver"));
  CHECK(f.seen.captures.empty());
  CHECK(!fs::exists(f.ws.dir / "built.txt"));
}

TEST_CASE("LLM endpoint and model set: the LLM policy proposes") {
  Fixture f;
  EditorSettings s;
  s.llm = {"http://localhost:8000/v1", "qwen-coder"};
  std::string error = f.run(s, kProgram);
  if (!agent::llm::llm_policy_available()) {
    CHECK(contains(error, "WARPLENS_WITH_LLM=OFF"));
    return;
  }
  REQUIRE_MESSAGE(error.empty(), error);
  CHECK(f.seen.policy == "llm");
  CHECK(f.seen.tools);  // it drafts with the compile check (and the analysis when the front end is built)
}

TEST_CASE("a remote LLM endpoint with the key in the environment: the LLM policy proposes" * needs("llm-policy")) {
  Fixture f;
  f.api_key = "sk-test-not-a-real-key";
  EditorSettings s;
  s.llm = {"https://api.example.com/v1", "some-model"};
  std::string error = f.run(s, kProgram);
  REQUIRE_MESSAGE(error.empty(), error);
  CHECK(f.seen.policy == "llm");
}

TEST_CASE("a misconfigured LLM: a clear error, and nothing runs" * needs("llm-policy")) {
  Fixture f;
  EditorSettings s;
  SUBCASE("an invalid URL") {
    s.llm = {"ftp://models.example.com", "m"};
    CHECK(contains(f.run(s, kProgram), "warplens.llm.endpoint is not usable"));
  }
  SUBCASE("a URL with credentials in it: refused, and never quoted") {
    s.llm = {"https://user:hunter2@models.example.com/v1?x=1", "m"};
    std::string error = f.run(s, kProgram);
    CHECK(contains(error, "warplens.llm.endpoint is not usable"));
    CHECK(!contains(error, "hunter2"));
  }
  SUBCASE("a remote endpoint without a key") {
    s.llm = {"https://api.example.com/v1", "m"};
    std::string error = f.run(s, kProgram);
    CHECK(contains(error, "no API key"));
    CHECK(contains(error, "WARPLENS_LLM_API_KEY"));
  }
  SUBCASE("an endpoint without a model") {
    s.llm = {"http://localhost:8000/v1", ""};
    CHECK(contains(f.run(s, kProgram), "warplens.llm.model is not set"));
  }
  CHECK(!f.seen.policy);
}

// The command line's choices (cli/optimize.cpp): the same workflow, other verifiers.
TEST_CASE("the command line: its own main() or a capture, no GPU check up front, messages in its words" *
          needs("rewrite-engine")) {
  Fixture f;
  f.gpu = false;  // the command line lets the verifier find that out
  const fs::path file = f.ws.dir / "kernel.cu";
  std::ofstream(file) << kLibrary;
  agent::OptimizeRequest req;
  req.file = SourceFile{file.string(), kLibrary};
  req.kernel = "scale";
  workflows::OptimizeContext ctx;
  ctx.names = workflows::SettingNames::command_line();
  ctx.require_gpu = false;
  ctx.verify.against = workflows::VerifyChoice::Against::OwnMain;  // whatever the file holds
  auto prepared = workflows::prepare_optimize(req, ctx, f.seams(), {}, {});
  REQUIRE(prepared);
  CHECK(prepared->policy() == "built-in rewrite search");
  CHECK(prepared->verifier() == "self-checking program");
  CHECK(prepared->gpu_name() == "this GPU");
  prepared->run({}, {});
  CHECK(f.seen.verifier == "self-checking program");
  CHECK(f.seen.captures.empty());

  ctx.verify.against = workflows::VerifyChoice::Against::Capture;
  ctx.verify.capture_dir = (f.ws.dir / "capture").string();
  CHECK(workflows::prepare_optimize(req, ctx, f.seams(), {}, {})->verifier() == "capture/replay");
}

TEST_CASE("the command line: a misconfigured LLM is refused in the options' words" * needs("llm-policy")) {
  Fixture f;
  agent::OptimizeRequest req;
  req.file = SourceFile{(f.ws.dir / "kernel.cu").string(), kLibrary};
  req.kernel = "scale";
  workflows::OptimizeContext ctx;
  ctx.names = workflows::SettingNames::command_line();
  ctx.require_gpu = false;
  ctx.policy.llm = true;
  ctx.policy.llm_settings = {"http://localhost:8000/v1", ""};
  try {
    workflows::prepare_optimize(req, ctx, f.seams(), {}, {});
    FAIL("no error");
  } catch (const workflows::OptimizeUnavailable& e) {
    CHECK(std::string(e.what()) == "the LLM policy needs a model: --llm-model (or WARPLENS_LLM_MODEL) is not set");
  }
}

}  // namespace warplens
