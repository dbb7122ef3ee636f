// The CLI front ends without a GPU: argument errors and the no-GPU path must
// give a clear message and a non-zero exit code, and --json must still
// print a parseable verdict.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "agent/verifier/verdict.h"
#include "cli/verify.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens;
using verifier::test::TempDir;
using cli::run_capture_command;
using cli::run_verify_command;

namespace {

struct Run {
  int code = 0;
  std::string out;
};

// Runs a subcommand with stdout captured into a file.
Run run_cli(int (*command)(int, char**), std::vector<std::string> args) {
  TempDir dir;
  auto file = dir.path() / "stdout.txt";
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, STDOUT_FILENO);
  close(fd);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Run r;
  r.code = command(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  return r;
}

struct Fixture {
  TempDir dir;
  std::string capture, original, candidate;
  Fixture() {
    capture = (dir.path() / "capture").string();
    std::filesystem::create_directories(capture);
    verifier::test::write_scale_add_capture(capture);
    original = (dir.path() / "original.cu").string();
    candidate = (dir.path() / "candidate.cu").string();
    std::ofstream(original) << verifier::test::kScaleAddSource;
    std::ofstream(candidate) << verifier::test::kScaleAddSource;
  }
};

}  // namespace

TEST_CASE("warplens verify: missing arguments are a usage error (exit 2)") {
  auto r = run_cli(run_verify_command, {"verify", "--capture", "x"});
  CHECK(r.code == 2);
  CHECK(run_cli(run_verify_command, {"verify", "--bogus"}).code == 2);
  CHECK(run_cli(run_verify_command, {"verify", "--runs", "many"}).code == 2);
  auto help = run_cli(run_verify_command, {"verify", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--pytorch-ref") != std::string::npos);
}

TEST_CASE("warplens verify: a missing capture is a clear error") {
  Fixture f;
  auto r = run_cli(run_verify_command, {"verify", "--capture", f.capture + "/nope", "--original", f.original,
                                        "--candidate", f.candidate, "--kernel", "scale_add", "--json"});
  CHECK(r.code == 2);
  auto v = verifier::parse_verdict(r.out);
  CHECK(v.status == verifier::VerdictStatus::Error);
  CHECK(v.error.find("does not exist") != std::string::npos);
}

TEST_CASE("warplens verify: an unknown kernel lists what the capture holds") {
  Fixture f;
  auto r = run_cli(run_verify_command, {"verify", "--capture", f.capture, "--original", f.original, "--candidate",
                                        f.candidate, "--kernel", "transpose", "--json"});
  CHECK(r.code == 2);
  auto v = verifier::parse_verdict(r.out);
  CHECK(v.error.find("no launch of `transpose`") != std::string::npos);
  CHECK(v.error.find("scale_add(float const*") != std::string::npos);
}

TEST_CASE("warplens verify: no GPU gives a clear error and a non-zero exit") {
  Fixture f;
  // Hide any GPU: on a machine without a driver libcuda.so.1 is missing;
  // with one, no device is visible. Either way verification cannot run.
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  auto r = run_cli(run_verify_command, {"verify", "--capture", f.capture, "--original", f.original, "--candidate",
                                        f.candidate, "--kernel", "scale_add", "--json"});
  unsetenv("CUDA_VISIBLE_DEVICES");
  CHECK(r.code == 2);
  auto v = verifier::parse_verdict(r.out);
  CHECK(v.status == verifier::VerdictStatus::Error);
  INFO("error: " << v.error);
  bool explained = v.error.find("no NVIDIA driver") != std::string::npos ||
                   v.error.find("no usable CUDA GPU") != std::string::npos ||
                   v.error.find("warplens-replay not found") != std::string::npos;
  CHECK(explained);
  CHECK(v.level == -1);
  CHECK_FALSE(v.offerable());
}

TEST_CASE("warplens verify: a missing replay binary is named") {
  Fixture f;
  auto r = run_cli(run_verify_command, {"verify", "--capture", f.capture, "--original", f.original, "--candidate",
                                        f.candidate, "--kernel", "scale_add", "--replay", "/nonexistent/warplens-replay"});
  CHECK(r.code == 2);
  CHECK(r.out.find("warplens-replay not found") != std::string::npos);
}

TEST_CASE("warplens capture: usage errors") {
  CHECK(run_cli(run_capture_command, {"capture", "--kernel", "k"}).code == 2);  // no program
  CHECK(run_cli(run_capture_command, {"capture", "--", "/bin/true"}).code == 2);  // no kernel
  auto missing_lib = run_cli(run_capture_command,
                             {"capture", "--kernel", "k", "--inject-lib", "/nonexistent.so", "--", "/bin/true"});
  CHECK(missing_lib.code == 2);
}
