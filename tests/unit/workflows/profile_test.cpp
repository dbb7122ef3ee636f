// The profile workflow without a GPU (workflows/profile.h): which mode a
// request asks for, what is checked before anything runs, and which kind of
// failure each refusal is (the command line's exit codes).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "workflows/profile.h"

namespace warplens {
namespace {

namespace fs = std::filesystem;
using Kind = workflows::ProfileJobError::Kind;

profile::GpuStatus no_gpu(std::stop_token) {
  profile::GpuStatus s;
  s.reason = "no NVIDIA driver";
  return s;
}

struct Run {
  std::optional<Kind> kind;  // the failure, if any
  std::string message;
  std::vector<std::string> progress;
  int probes = 0;
};

Run run(const workflows::ProfileJobRequest& req) {
  Run r;
  try {
    workflows::run_profile_job(
        req, {}, [&r](workflows::ProfileStage, const std::string& m, int) { r.progress.push_back(m); },
        [&r](std::stop_token s) {
          ++r.probes;
          return no_gpu(s);
        });
  } catch (const workflows::ProfileJobError& e) {
    r.kind = e.kind;
    r.message = e.what();
  }
  return r;
}

}  // namespace

TEST_CASE("a recorded profile needs no GPU") {
  workflows::ProfileJobRequest req;
  req.profile_file = std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/profile/transpose.json";
  auto result = workflows::run_profile_job(req, {}, {}, no_gpu);
  REQUIRE(result.profile);
  CHECK(result.origin == "recorded profile " + req.profile_file);
  req.profile_file = "/nonexistent/p.json";
  CHECK(run(req).kind == Kind::Failed);
}

TEST_CASE("without a GPU nothing is built or run, whichever way the program is given") {
  workflows::ProfileJobRequest program;  // the command line's `-- PROGRAM ARGS`
  program.program = {"/bin/true"};
  Run r = run(program);
  CHECK(r.kind == Kind::NoGpu);
  CHECK(r.message == "cannot profile: no NVIDIA driver");
  CHECK(r.probes == 1);

  workflows::ProfileJobRequest source;  // the command line's FILE.cu
  source.source_file = "/nonexistent/k.cu";
  r = run(source);
  CHECK(r.kind == Kind::NoGpu);
  for (const auto& m : r.progress) CHECK(m.find("building") == std::string::npos);

  workflows::ProfileJobRequest workspace;  // the editor's profileCommand
  workspace.profile_command = "./app";
  workspace.build_command = "touch built.txt";
  workspace.document_path = "/nonexistent/k.cu";
  CHECK(run(workspace).kind == Kind::NoGpu);
}

TEST_CASE("the editor's document without profileCommand must be a program with main()") {
  workflows::ProfileJobRequest req;
  req.document_path = "/tmp/lib.cu";
  req.document_text = "__global__ void k() {}\n";
  Run r = run(req);
  CHECK(r.kind == Kind::BadRequest);
  CHECK(r.message.find("set warplens.profileCommand") != std::string::npos);
  CHECK(r.probes == 0);  // refused before asking for a GPU
  CHECK(workflows::is_self_contained_program("/tmp/p.cu", "int main() { return 0; }\n"));
  CHECK_FALSE(workflows::is_self_contained_program("/tmp/p.h", "int main() { return 0; }\n"));
}

}  // namespace warplens
