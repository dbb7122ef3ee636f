// The one subprocess helper (common/subprocess.h): captured and file
// output, exit codes and signals, timeouts and cancellation ending the whole
// process group, the environment, and a child that leaves a grandchild
// holding its pipes.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/subprocess.h"

using namespace warplens;
using namespace std::chrono_literals;

namespace {

ProcessSpec shell(const std::string& script) {
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.capture_output = true;
  return s;
}

// Running, not a zombie: an orphaned grandchild that was killed stays a
// zombie until PID 1 reaps it, which a container's init may never do.
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  if (!(stat >> pid_field >> comm >> state)) return false;  // gone meanwhile
  return state != "Z" && state != "X";
}

}  // namespace

TEST_CASE("captured output, exit code, environment, working directory") {
  ProcessSpec s = shell("echo out; echo err >&2; echo \"$WL_TEST_VAR\"; pwd; exit 3");
  s.env_set = {{"WL_TEST_VAR", "set"}};
  s.working_directory = "/tmp";
  ProcessResult r = run_process(s);
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.succeeded());
  CHECK(r.out == "out\nset\n/tmp\n");
  CHECK(r.err == "err\n");
  CHECK(describe_process(r, s) == "/bin/sh exited with code 3");
}

TEST_CASE("output beyond the cap is read and dropped, so the child never blocks") {
  ProcessSpec s = shell("head -c 3000000 /dev/zero");
  s.max_captured_bytes = 1000;
  ProcessResult r = run_process(s);
  CHECK(r.succeeded());
  CHECK(r.out.size() == 1000);
}

TEST_CASE("a signal is reported as such") {
  ProcessResult r = run_process(shell("kill -SEGV $$"));
  CHECK(r.signal == SIGSEGV);
  CHECK(r.exit_code == 128 + SIGSEGV);
  CHECK_FALSE(r.succeeded());
}

TEST_CASE("a timeout ends the whole group, grandchildren included") {
  auto pidfile = std::filesystem::temp_directory_path() / ("wl-subprocess-" + std::to_string(::getpid()));
  ProcessSpec s = shell("sleep 30 & echo $! > " + pidfile.string() + "; wait");
  s.timeout = 300ms;
  s.kill_grace = 200ms;
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process(s);
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(r.timed_out);
  CHECK_FALSE(r.succeeded());
  CHECK(describe_process(r, s).find("timed out") != std::string::npos);
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  std::filesystem::remove(pidfile);
  REQUIRE(grandchild > 0);
  for (int i = 0; i < 300 && alive(grandchild); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(alive(grandchild));
}

TEST_CASE("a stop request cancels; a TERM-ignoring child is killed after the grace period") {
  std::stop_source stop;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    stop.request_stop();
  });
  ProcessSpec s = shell("trap '' TERM; sleep 30");
  s.kill_grace = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process(s, stop.get_token());
  canceller.join();
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(r.cancelled);
  CHECK(describe_process(r, s) == "/bin/sh was cancelled");
}

TEST_CASE("a grandchild that keeps the pipes open does not hold the caller") {
  // The child exits at once; its background sleep inherits stdout.
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process(shell("echo done; sleep 20 &"));
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(r.succeeded());
  CHECK(r.out == "done\n");
}

TEST_CASE("output to files, and a program that does not exist") {
  auto dir = std::filesystem::temp_directory_path() / ("wl-subprocess-files-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "echo to-file; echo to-err >&2"};
  s.stdout_path = (dir / "out").string();
  s.stderr_path = (dir / "err").string();
  ProcessResult r = run_process(s);
  CHECK(r.succeeded());
  CHECK(r.out.empty());
  CHECK(tail_of_file(s.stdout_path) == "to-file\n");
  CHECK(tail_of_file(s.stderr_path) == "to-err\n");
  std::filesystem::remove_all(dir);
  ProcessSpec missing;
  missing.argv = {"/nonexistent/program"};
  ProcessResult m = run_process(missing);
  CHECK_FALSE(m.started);
  CHECK(m.start_error.find("cannot run /nonexistent/program") == 0);
  CHECK(run_process(ProcessSpec{}).start_error == "no program given");
}
