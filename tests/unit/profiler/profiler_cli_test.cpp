// `warplens profile` end to end through the stand-alone binary, as a child
// process: exit codes, messages, output formats. No GPU needed (the GPU
// paths are forced off with WARPLENS_PROFILE_ASSUME_NO_GPU=1).
#include <doctest/doctest.h>

#include "profiler/scratch_dir.h"
#include "common/subprocess.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

CliRun cli(std::vector<std::string> args) {
  ScratchDir dir("warplens-cli-test-");
  ProcessSpec spec;
  spec.argv = {WARPLENS_PROFILE_CLI};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_set = {{"WARPLENS_PROFILE_ASSUME_NO_GPU", "1"}};
  spec.stdout_path = dir.file("out");
  spec.stderr_path = dir.file("err");
  spec.timeout = std::chrono::seconds(60);
  ProcessResult r = run_process(spec);
  REQUIRE(r.started);
  return {r.exit_code, test::read_file(spec.stdout_path), test::read_file(spec.stderr_path)};
}

}  // namespace

TEST_CASE("no GPU: exit code 3 and a message that says so") {
  CliRun r = cli({"--", "/bin/true"});
  CHECK(r.exit_code == 3);
  CHECK(r.out.empty());
  CHECK(r.err == "warplens profile: cannot profile: no GPU (WARPLENS_PROFILE_ASSUME_NO_GPU=1 is set)\n");
  // Single-file mode checks for the GPU before it spends time in nvcc.
  CliRun file = cli({test::source_dir() + "/tests/gpu/profiler_transpose.cu"});
  CHECK(file.exit_code == 3);
  CHECK(file.err.find("building") == std::string::npos);
}

TEST_CASE("usage errors: exit code 2 and the usage text") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {}, {"--launches", "many", "--", "/bin/true"}, {"--format", "xml", "--", "/bin/true"},
           {"--bogus"}, {"--passes", "3", "--", "x"}, {"stray", "--", "x"}, {"--kernel"},
           {"--show", "a.json", "--", "prog"}, {"--arch", "90", "x.cu"}}) {
    CliRun r = cli(args);
    CAPTURE(args.size());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("usage: warplens profile") != std::string::npos);
  }
  CliRun help = cli({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("exit codes: 0 profiled, 1 error, 2 usage, 3 no GPU") != std::string::npos);
}

TEST_CASE("--show renders a saved profile as tsv, text or json") {
  const std::string fixture = test::fixture_path("transpose");
  CliRun tsv = cli({"--show", fixture, "--format", "tsv"});
  CHECK(tsv.exit_code == 0);
  CHECK(tsv.out.rfind("file\tline\tkernel\tkind\texecuted\tactual\tideal\t", 0) == 0);
  CHECK(tsv.out.find("\ttranspose_naive(float*, float const*)\tglobal_store\t131072\t4194304\t524288\t32\t4\t8\t") !=
        std::string::npos);

  CliRun text = cli({"--show", fixture});  // text is the default on stdout
  CHECK(text.exit_code == 0);
  CHECK(text.out.rfind("warplens profile: NVIDIA H200 (sm_90, 132 SMs, peak ", 0) == 0);
  // Column 1 when the recorded source is not on this machine, else the
  // line's first non-blank byte.
  auto at = text.out.find("profiler_transpose.cu:25:");
  REQUIRE(at != std::string::npos);
  CHECK(text.out.find(": warning: measured global store: 32.0 sectors/request (ideal 4.0), 8.0× excess", at) ==
        text.out.find(':', at + std::string("profiler_transpose.cu:25:").size()));
  CHECK(text.out.find("warning: measured 32-way bank conflict on this shared load") != std::string::npos);
  CHECK(text.out.find("transpose_padded(float*, float const*)") != std::string::npos);

  ScratchDir dir("warplens-cli-test-");
  CliRun json = cli({"--show", fixture, "--out", dir.file("copy.json")});
  CHECK(json.exit_code == 0);
  CHECK(json.out.empty());
  std::string error;
  auto copy = load_profile(dir.file("copy.json"), &error);
  REQUIRE_MESSAGE(copy.has_value(), error);
  CHECK(*copy == test::load_fixture("transpose"));
}

TEST_CASE("--show of a recording without per-line data says so") {
  // The first H200 run: counters all 0, no lines, no warning yet.
  CliRun text = cli({"--show", test::source_dir() + "/tests/fixtures/profile/failures/transpose_all_zero.h200-run1.json"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("transpose_naive(float*, float const*)") != std::string::npos);
  CHECK(text.out.find("\nno per-line data in this profile") != std::string::npos);
  CliRun tsv = cli({"--show", test::source_dir() + "/tests/fixtures/profile/failures/transpose_all_zero.h200-run1.json",
                    "--format", "tsv"});
  CHECK(tsv.exit_code == 0);
  CHECK(tsv.out.find('\n') == tsv.out.size() - 1);  // the header only
}

TEST_CASE("--show with a missing or broken file: exit code 1") {
  CliRun missing = cli({"--show", "/nonexistent/profile.json"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("cannot open /nonexistent/profile.json") != std::string::npos);
  ScratchDir dir("warplens-cli-test-");
  std::ofstream(dir.file("bad.json")) << R"({"schema": "something/else"})";
  CliRun bad = cli({"--show", dir.file("bad.json")});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("unsupported schema") != std::string::npos);
}
