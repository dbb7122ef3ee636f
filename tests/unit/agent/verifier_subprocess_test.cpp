#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "agent/verifier/subprocess.h"

using namespace warplens::verifier;

TEST_CASE("subprocess: exit code, output, environment, working directory") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo out; echo err >&2; echo $WARPLENS_TEST_VAR; pwd; exit 3"};
  spec.env = {{"WARPLENS_TEST_VAR", "hello"}};
  spec.cwd = "/tmp";
  auto r = run_process(spec);
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.succeeded());
  CHECK(r.out == "out\nhello\n/tmp\n");
  CHECK(r.err == "err\n");
  CHECK(r.describe() == "exit code 3");
}

TEST_CASE("subprocess: a missing program does not start") {
  ProcessSpec spec;
  spec.argv = {"warplens-no-such-program-xyz"};
  auto r = run_process(spec);
  CHECK_FALSE(r.started);
  CHECK(r.start_error.find("not found") != std::string::npos);
  spec.argv = {"/nonexistent/prog"};
  CHECK_FALSE(run_process(spec).started);
}

TEST_CASE("subprocess: a time limit kills the whole process group") {
  ProcessSpec spec;
  // The child starts a grandchild; both must die at the limit.
  spec.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
  spec.timeout_s = 0.3;
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_process(spec);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.timed_out);
  CHECK(r.signal == 9);
  CHECK(s < 5);
  CHECK(r.describe().find("timed out") == 0);
}

TEST_CASE("subprocess: cancellation through the stop token") {
  std::stop_source source;
  ProcessSpec spec;
  spec.argv = {"/bin/sleep", "30"};
  std::jthread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    source.request_stop();
  });
  auto r = run_process(spec, source.get_token());
  CHECK(r.cancelled);
  CHECK_FALSE(r.timed_out);
}

TEST_CASE("subprocess: a crash is reported as a signal") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  auto r = run_process(spec);
  CHECK(r.signal == 11);
  CHECK(r.describe().find("killed by signal 11") == 0);
}

TEST_CASE("subprocess: output beyond the limit is truncated, not lost in a deadlock") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"};
  spec.output_limit = 1000;
  auto r = run_process(spec);
  CHECK(r.succeeded());
  CHECK(r.out.size() < 1100);
  CHECK(r.out.find("truncated") != std::string::npos);
}
