// The model's tools without a model: the file sandbox, each tool's answers,
// propose_edit's checks, and what the prompts say.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "agent/llm/kernel_directory.h"
#include "agent/llm/prompts.h"
#include "agent/llm/tool_box.h"
#include "tests/unit/agent/llm_test_support.h"

using namespace warplens;
using namespace warplens::agent;
using namespace warplens::agent::llm;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

struct Sandbox {
  std::string root = llm_test::scratch("sandbox");
  std::string dir = root + "/project/kernels";
  SourceFile file{dir + "/k.cu", "// the editor's unsaved buffer\n__global__ void k(float* a) { a[0] = 1; }\n"};
  Sandbox() {
    write(dir + "/k.cu", "// what is on disk\n");
    write(dir + "/common.cuh", "#define TILE 32\n");
    write(dir + "/sub/deep.h", "int deep;\n");
    write(dir + "/.env", "WARPLENS_LLM_API_KEY=secret\n");
    write(dir + "/.git/config", "[core]\n");
    write(root + "/project/secret.txt", "outside\n");
    fs::create_symlink(root + "/project/secret.txt", dir + "/escape.txt");
    fs::create_directory_symlink(root + "/project", dir + "/up");
  }
};

ToolCall call(const std::string& name, const json& args) { return {"id1", name, args.dump()}; }

}  // namespace

TEST_CASE("read_file is confined to the kernel's directory") {
  Sandbox s;
  KernelDirectory dir(s.file);
  CHECK(dir.kernel_file_name() == "k.cu");
  auto r = dir.read("k.cu", 1000);
  REQUIRE(r.ok);
  CHECK(r.text == s.file.text);  // the buffer, not the disk
  CHECK(dir.read(s.dir + "/common.cuh", 1000).text == "#define TILE 32\n");  // absolute inside is fine
  CHECK(dir.read("sub/deep.h", 1000).ok);
  CHECK(dir.read("./sub/../common.cuh", 1000).ok);

  for (const char* bad : {"../secret.txt", "../../project/secret.txt", "/etc/passwd", "escape.txt", "up/secret.txt",
                          "sub/../../secret.txt"}) {
    CAPTURE(bad);
    auto b = dir.read(bad, 1000);
    CHECK_FALSE(b.ok);
    CHECK(b.error.find("outside the kernel's directory") != std::string::npos);
  }
  for (const char* hidden : {".env", ".git/config", "sub/../.env"}) {
    CAPTURE(hidden);
    auto h = dir.read(hidden, 1000);
    CHECK_FALSE(h.ok);
    CHECK(h.error.find("hidden") != std::string::npos);
  }
  CHECK(dir.read("missing.cu", 1000).error.find("no file") != std::string::npos);
  CHECK(dir.read("sub", 1000).error.find("directory") != std::string::npos);
  auto cut = dir.read("common.cuh", 4);
  CHECK(cut.ok);
  CHECK(cut.truncated);
  CHECK(cut.text == "#def");

  std::string error;
  std::string listing = dir.list("", error);
  CHECK(error.empty());
  CHECK(listing.find("common.cuh\n") != std::string::npos);
  CHECK(listing.find("sub/\n") != std::string::npos);
  CHECK(listing.find(".env") == std::string::npos);
  dir.list("..", error);
  CHECK(error.find("outside") != std::string::npos);
}

TEST_CASE("tools answer clearly when the session has no analysis or compiler") {
  Sandbox s;
  LlmConfig config;
  config.model = "m";
  ToolBox box(config);
  std::string kernel = "k";
  std::vector<Finding> findings;
  std::optional<ProfileHints> profile;
  std::vector<TriedCandidate> history;
  PolicyContext ctx{s.file, kernel, findings, profile, history, BudgetLeft{100, 4, 10}, nullptr};
  CHECK(box.call(call("static_analysis", json::object()), ctx, 1).reply.find("not available") != std::string::npos);
  CHECK(box.call(call("compile", json::object()), ctx, 1).reply.find("not available") != std::string::npos);
  // Without the checks, a proposal in full-source form is still accepted.
  ToolOutcome o = box.call(call("propose_edit", {{"description", "store 2"},
                                                 {"source", "__global__ void k(float* a) { a[0] = 2; }\n"}}),
                           ctx, 3);
  REQUIRE(o.candidate);
  CHECK(o.candidate->notes.size() == 1);
  CHECK(o.candidate->notes[0].find("turn 3") != std::string::npos);
  // The same source again is a duplicate; edits on top of it work.
  CHECK(box.call(call("propose_edit", {{"description", "again"}, {"source", "__global__ void k(float* a) { a[0] = 2; }\n"}}),
                 ctx, 4)
            .reply.find("identical to your candidate llm-01") != std::string::npos);
  o = box.call(call("propose_edit", {{"description", "store 3"}, {"base", "llm-01"},
                                     {"edits", {{{"old", "a[0] = 2"}, {"new", "a[0] = 3"}}}}}),
               ctx, 5);
  REQUIRE(o.candidate);
  CHECK(o.candidate->id == "llm-02");
  CHECK(o.candidate->source == "__global__ void k(float* a) { a[0] = 3; }\n");
  CHECK(box.call(call("propose_edit", {{"description", "gone"}, {"source", "int main() {}\n"}}), ctx, 6)
            .reply.find("missing from the result") != std::string::npos);
  CHECK(box.call(call("finish", {{"reason", "done"}}), ctx, 7).finish);
  // Arguments encoded twice (a JSON string holding the object) are accepted.
  ToolCall twice{"id2", "read_file", json(json{{"path", "common.cuh"}}.dump()).dump()};
  CHECK(box.call(twice, ctx, 8).reply.find("#define TILE 32") != std::string::npos);
}

TEST_CASE("static_analysis and compile run on the original, a draft or an earlier candidate") {
  LlmConfig config;
  config.model = "m";
  ToolBox box(config);
  llm_test::Round round;
  PolicyContext ctx = round.context();
  std::string a = box.call(call("static_analysis", json::object()), ctx, 1).reply;
  CHECK(a.find("line 9 [uncoalesced-global]") != std::string::npos);
  CHECK(a.find("`if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];`") != std::string::npos);
  CHECK(box.call(call("compile", json::object()), ctx, 1).reply == "Compiles cleanly.");
  std::string e = box.call(call("compile", {{"source", "__global__ void transpose() { int x = TILE; }"}}), ctx, 1).reply;
  CHECK(e.find("identifier \"TILE\" is undefined") != std::string::npos);
  CHECK(box.call(call("compile", {{"source", "x"}, {"candidate", "llm-01"}}), ctx, 1).reply.find("not both") !=
        std::string::npos);
}

TEST_CASE("host-code changes are allowed only when configured") {
  llm_test::Round round;
  PolicyContext ctx = round.context();
  const json edit = {{"description", "bigger blocks"},
                     {"edits", {{{"old", "transpose<<<grid, block>>>"}, {"new", "transpose<<<grid, dim3(32, 16)>>>"}}}}};
  LlmConfig config;
  config.model = "m";
  ToolBox strict(config);
  CHECK(strict.call(call("propose_edit", edit), ctx, 1).reply.find("host code launching the kernel changed") !=
        std::string::npos);
  config.allow_host_changes = true;
  ToolBox lenient(config);
  ToolOutcome o = lenient.call(call("propose_edit", edit), ctx, 1);
  REQUIRE(o.candidate);
  CHECK(o.candidate->source.find("dim3(32, 16)") != std::string::npos);
}

TEST_CASE("verdicts read the way the model needs them") {
  TriedCandidate t;
  t.candidate.id = "llm-03";
  t.verdict.compiled = false;
  t.verdict.compile_log = "k.cu(3): error: expected a \";\"";
  t.verdict.level = RewardLevel::Incorrect;
  std::string v = verdict_text(t);
  CHECK(v.find("Verdict for llm-03: level -1") != std::string::npos);
  CHECK(v.find("did not compile") != std::string::npos);
  CHECK(v.find("expected a \";\"") != std::string::npos);

  t.verdict.compiled = true;
  t.verdict.correct = true;
  t.verdict.input_sets = 5;
  t.verdict.original = {2.0, 1.9, 2.1, 30};
  t.verdict.candidate = {1.0, 0.9, 1.1, 30};
  t.verdict.speedup = 2.0;
  t.verdict.level = RewardLevel::FasterThanPyTorch;
  t.verdict.eager_ms = 1.5;
  t.verdict.compiled_ms = 1.2;
  v = verdict_text(t);
  CHECK(v.find("level 3") != std::string::npos);
  CHECK(v.find("original 2 ms, candidate 1 ms -> 2.00x") != std::string::npos);
  CHECK(v.find("torch.compile: 1.2 ms") != std::string::npos);

  CHECK(budget_text(BudgetLeft{412.7, 7, 3}, 23) == "Budget left: 7 candidate(s), 412 s of wall time, 23 turn(s).");
  LlmConfig config;
  config.target_gpu = "NVIDIA H200 (sm_90)";
  CHECK(system_prompt(config).find("Target GPU: NVIDIA H200 (sm_90).") != std::string::npos);
  CHECK(system_prompt(config).find("Reward levels") != std::string::npos);
}
