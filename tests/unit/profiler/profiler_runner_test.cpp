#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "profiler/gpu_probe.h"
#include "profiler/profile_data.h"
#include "profiler/runner.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;
namespace fs = std::filesystem;

namespace {

GpuStatus gpu_present(std::stop_token) {
  GpuStatus s;
  s.available = true;
  s.devices.push_back({0, "Fake GPU", 9, 0});
  return s;
}

GpuStatus gpu_absent(std::stop_token) {
  GpuStatus s;
  s.reason = "no NVIDIA GPU found: there are no /dev/nvidia* device files";
  return s;
}

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  std::ofstream(path) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

// A stand-in for a CUDA program under the injection library: it writes a
// profile where the library would, filling in what it saw in its
// environment, so the runner's side of the contract is tested without a GPU.
struct FakeProgram {
  ScratchDir dir{"warplens-runner-test-"};
  std::string script, library;

  explicit FakeProgram(const std::string& body) {
    REQUIRE(dir.ok());
    library = dir.file("libwarplens_inject.so");
    write_file(library, "not really a library");
    script = dir.file("program.sh");
    write_file(script, "#!/bin/sh\n" + body, true);
  }

  // A template profile the script fills with sed: one kernel, launched
  // once; the metrics pass measures it (counts only, as without the Activity
  // API), the timing pass times it.
  std::string write_template() {
    std::string path = dir.file("template.json");
    write_file(path, R"json({"schema": "warplens-profile/1",
      "kernels": [{"name": "k()", "mangled": "_Z1kv", "launch_count": 1, "metric_launches": @ML@,
                   "timing": {"launches": @TL@, "total_ns": @TN@, "min_ns": @TN@, "max_ns": @TN@},
                   "launches": [@LAUNCH@]}],
      "warnings": [{"code": "env-@PASS@", "message": "kernel=@KERNEL@ inject=@INJECT@ metrics=@METRICS@ activity=@ACTIVITY@ launches=@LAUNCHES@ mode=@MODE@"}]})json");
    return path;
  }

  RunOptions options() const {
    RunOptions o;
    o.command = {script, "arg one"};
    o.injection_library = library;
    o.timeout = std::chrono::seconds(20);
    return o;
  }
};

const char* kWriteProfile = R"sh(
out=$(echo "$WARPLENS_PROFILE_OUT" | sed "s/%p/$$/")
if [ "$WARPLENS_PROFILE_METRICS" = 1 ]; then ML=1; TL=0; TN=0; LAUNCH=
else ML=0; TL=1; TN=1000; LAUNCH='{"index": 0, "pass": "timing", "duration_ns": 1000}'; fi
sed -e "s|@ML@|$ML|" -e "s|@TL@|$TL|" -e "s|@TN@|$TN|g" -e "s|@LAUNCH@|$LAUNCH|" \
    -e "s|@PASS@|$WARPLENS_PROFILE_PASS|" -e "s|@KERNEL@|$WARPLENS_PROFILE_KERNEL|" \
    -e "s|@INJECT@|$CUDA_INJECTION64_PATH|" -e "s|@METRICS@|$WARPLENS_PROFILE_METRICS|" \
    -e "s|@ACTIVITY@|$WARPLENS_PROFILE_ACTIVITY|" \
    -e "s|@LAUNCHES@|$WARPLENS_PROFILE_METRIC_LAUNCHES|" -e "s|@MODE@|$WARPLENS_PROFILE_SASS_MODE|" \
    "$(dirname "$0")/template.json" > "$out"
echo "program stdout: $1"
echo "program stderr" >&2
exit ${FAKE_EXIT:-0}
)sh";

}  // namespace

TEST_CASE("no GPU: a clear error and the program is not run") {
  FakeProgram fake("touch \"$(dirname \"$0\")/ran\"\n");
  RunResult r = run_profile(fake.options(), {}, {}, gpu_absent);
  CHECK(r.status == RunStatus::NoGpu);
  CHECK(r.message == "cannot profile: no NVIDIA GPU found: there are no /dev/nvidia* device files");
  CHECK_FALSE(r.profile.has_value());
  CHECK_FALSE(fs::exists(fake.dir.file("ran")));
}

TEST_CASE("the real probes honour WARPLENS_PROFILE_ASSUME_NO_GPU") {
  setenv(kAssumeNoGpuEnv, "1", 1);
  GpuStatus full = probe_gpus();
  GpuStatus quick = quick_gpu_check();
  unsetenv(kAssumeNoGpuEnv);
  CHECK_FALSE(full.available);
  CHECK(full.reason.find(kAssumeNoGpuEnv) != std::string::npos);
  CHECK_FALSE(quick.available);
  CHECK(quick.reason == full.reason);
}

TEST_CASE("device files present but no working GPU: the full probe decides after the run") {
  FakeProgram fake("echo 'cudaErrorNoDevice' >&2\nexit 1\n");
  RunResult r = run_profile(fake.options(), {}, {}, gpu_present, gpu_absent);
  CHECK(r.status == RunStatus::NoGpu);
  CHECK(r.message.find("cannot profile: no NVIDIA GPU found") == 0);
  // With a working GPU the same failure is the program's.
  RunResult mine = run_profile(fake.options(), {}, {}, gpu_present, gpu_present);
  CHECK(mine.status == RunStatus::NoProfile);
  CHECK(mine.message.find("cudaErrorNoDevice") != std::string::npos);
}

TEST_CASE("a missing injection library is reported with where it was looked for") {
  FakeProgram fake("exit 0\n");
  RunOptions o = fake.options();
  o.injection_library = fake.dir.file("nope.so");
  RunResult r = run_profile(o, {}, {}, gpu_present);
  CHECK(r.status == RunStatus::NoInjectionLibrary);
  CHECK(r.message.find("libwarplens_inject.so was not found") == 0);
  CHECK(r.message.find(o.injection_library) != std::string::npos);
}

TEST_CASE("bad requests are refused before anything runs") {
  RunOptions o;
  CHECK(run_profile(o, {}, {}, gpu_present).status == RunStatus::BadRequest);
  o.command = {"/bin/true"};
  o.settings.kernel_regex = "naive(";
  RunResult r = run_profile(o, {}, {}, gpu_present);
  CHECK(r.status == RunStatus::BadRequest);
  CHECK(r.message.find("invalid --kernel regex \"naive(\"") == 0);
}

TEST_CASE("the runner configures the library through the environment and reads its profile") {
  FakeProgram fake(kWriteProfile);
  fake.write_template();
  RunOptions o = fake.options();
  o.settings.kernel_regex = "naive";
  o.settings.metric_launches = 3;
  o.settings.sass_mode = SassMode::WholeRun;
  o.work_dir = fake.dir.file("work");
  std::vector<std::string> progress;
  RunResult r = run_profile(o, {}, [&](const std::string& m, double) { progress.push_back(m); }, gpu_present);
  REQUIRE_MESSAGE(r.status == RunStatus::Ok, r.message);
  const Profile& p = *r.profile;
  CHECK(p.command == o.command);
  CHECK(p.settings == o.settings);
  CHECK(p.exit_code == 0);
  // Two passes by default: SASS metrics and the Activity API never together.
  REQUIRE(p.passes.size() == 2);
  CHECK(p.passes[0].kind == "metrics");
  CHECK(p.passes[0].metrics);
  CHECK(p.passes[1].kind == "timing");
  CHECK_FALSE(p.passes[1].metrics);
  CHECK(p.wall_ms >= p.passes[0].wall_ms + p.passes[1].wall_ms);
  const Kernel& k = *p.find_kernel("_Z1kv");
  CHECK(k.metric_launches == 1);  // from the metrics pass
  CHECK(k.timing.launches == 1);  // from the timing pass
  REQUIRE(k.launches.size() == 1);
  CHECK(k.launches[0].pass == "timing");
  CHECK_FALSE(k.launches[0].instrumented);
  CHECK_FALSE(p.has_warning("launches-differ"));
  // What each pass saw.
  REQUIRE(p.warnings.size() == 2);
  CHECK(p.warnings[0].code == "env-metrics");
  CHECK(p.warnings[0].message ==
        "kernel=naive inject=" + fake.library + " metrics=1 activity=0 launches=3 mode=whole-run");
  CHECK(p.warnings[1].code == "env-timing");
  CHECK(p.warnings[1].message ==
        "timing pass: kernel=naive inject=" + fake.library + " metrics=0 activity=1 launches=3 mode=whole-run");
  // Its output went to files, not to our stdout.
  CHECK(test::read_file(r.program_stdout) == "program stdout: arg one\n");
  CHECK(test::read_file(r.program_stderr) == "program stderr\n");
  CHECK(r.program_stdout == fake.dir.file("work") + "/timing.stdout");
  CHECK(progress.front() == "looking for a GPU");
  CHECK(progress.back() == "done");
}

TEST_CASE("one pass: the metrics pass alone (said so), or the timing pass alone without metrics") {
  FakeProgram fake(kWriteProfile);
  fake.write_template();
  RunOptions o = fake.options();
  o.passes = Passes::One;
  RunResult r = run_profile(o, {}, {}, gpu_present);
  REQUIRE(r.status == RunStatus::Ok);
  REQUIRE(r.profile->passes.size() == 1);
  CHECK(r.profile->passes[0].kind == "metrics");
  CHECK(r.profile->find_kernel("_Z1kv")->timing.launches == 0);
  CHECK(r.profile->has_warning("metrics-only"));
  CHECK(r.profile->has_warning("env-metrics"));

  for (Passes passes : {Passes::One, Passes::Two}) {
    o.passes = passes;
    o.settings.metrics = false;  // nothing to measure: the timing pass alone
    r = run_profile(o, {}, {}, gpu_present);
    REQUIRE(r.status == RunStatus::Ok);
    REQUIRE(r.profile->passes.size() == 1);
    CHECK(r.profile->passes[0].kind == "timing");
    CHECK_FALSE(r.profile->passes[0].metrics);
    CHECK(r.profile->find_kernel("_Z1kv")->timing.launches == 1);
    CHECK_FALSE(r.profile->has_warning("metrics-only"));
    REQUIRE(r.profile->has_warning("env-timing"));
    CHECK(r.profile->warnings[0].message.find(" metrics=0 activity=1 ") != std::string::npos);
  }
}

TEST_CASE("both passes run the same program, arguments and directory; a program that differs is flagged") {
  // Each run notes what it was started with; the timing run launches the
  // kernel four times where the metrics run launched it once.
  FakeProgram fake(std::string(R"sh(
echo "$WARPLENS_PROFILE_PASS|$PWD|$0|$*" >> "$(dirname "$0")/runs.log"
if [ "$WARPLENS_PROFILE_PASS" = timing ]; then
  sed -i 's/"launch_count": 1/"launch_count": 4/' "$(dirname "$0")/template.json"
fi
)sh") + kWriteProfile);
  fake.write_template();
  RunOptions o = fake.options();
  o.command.push_back("--size=7");
  o.working_directory = fake.dir.path();
  RunResult r = run_profile(o, {}, {}, gpu_present);
  REQUIRE_MESSAGE(r.status == RunStatus::Ok, r.message);
  const std::string same = "|" + fake.dir.path() + "|" + fake.script + "|arg one --size=7\n";
  CHECK(test::read_file(fake.dir.file("runs.log")) == "metrics" + same + "timing" + same);

  const Profile& p = *r.profile;
  const Kernel& k = *p.find_kernel("_Z1kv");
  // The metrics pass's count and measurements stay; the durations are the
  // timing pass's own; nothing is averaged across the two.
  CHECK(k.launch_count == 1);
  CHECK(k.metric_launches == 1);
  CHECK(k.timing.launches == 1);
  REQUIRE(p.has_warning("launches-differ"));
  for (const Warning& w : p.warnings)
    if (w.code == "launches-differ")
      CHECK(w.message == "k() was launched 1 times in the metrics pass and 4 times in the timing pass "
                         "(the program does not repeat itself exactly): its metrics are from the metrics "
                         "pass's first 1 launch(es), its durations from the timing pass's launches");
}

TEST_CASE("a timing pass that fails leaves the metrics, with a warning") {
  // The program writes its profile only when measuring.
  FakeProgram fake(std::string("[ \"$WARPLENS_PROFILE_METRICS\" = 1 ] || exit 3\n") + kWriteProfile);
  fake.write_template();
  RunResult r = run_profile(fake.options(), {}, {}, gpu_present);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.profile->passes.size() == 1);
  CHECK(r.profile->find_kernel("_Z1kv")->metric_launches == 1);
  REQUIRE(r.profile->has_warning("timing-pass-failed"));
  CHECK(r.profile->exit_code == 0);
}

TEST_CASE("a failing program still yields its profile, with a warning") {
  FakeProgram fake(std::string("FAKE_EXIT=7\n") + kWriteProfile);
  fake.write_template();
  RunOptions o = fake.options();
  o.passes = Passes::One;
  RunResult r = run_profile(o, {}, {}, gpu_present);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.profile->exit_code == 7);
  CHECK(r.profile->passes[0].exit_code == 7);
  REQUIRE(r.profile->has_warning("program-failed"));
}

TEST_CASE("a program that writes no profile: the reason and its stderr") {
  FakeProgram fake("echo 'error: no CUDA here' >&2\nexit 0\n");
  RunResult r = run_profile(fake.options(), {}, {}, gpu_present, gpu_present);
  CHECK(r.status == RunStatus::NoProfile);
  CHECK(r.message.find("exited with code 0 without writing a profile") != std::string::npos);
  CHECK(r.message.find("Did it use CUDA?") != std::string::npos);
  CHECK(r.message.find("error: no CUDA here") != std::string::npos);
}

TEST_CASE("a crashing program is described by its signal") {
  FakeProgram fake("kill -SEGV $$\n");
  RunResult r = run_profile(fake.options(), {}, {}, gpu_present, gpu_present);
  CHECK(r.status == RunStatus::NoProfile);
  CHECK(r.message.find("was killed by signal 11") != std::string::npos);
}

TEST_CASE("a program that cannot start") {
  RunOptions o;
  o.command = {"/nonexistent/program"};
  ScratchDir dir("warplens-runner-test-");
  o.injection_library = dir.file("lib.so");
  std::ofstream(o.injection_library) << "x";
  RunResult r = run_profile(o, {}, {}, gpu_present);
  CHECK(r.status == RunStatus::StartFailed);
  CHECK(r.message.find("cannot run /nonexistent/program") == 0);
}

TEST_CASE("timeouts stop the program and everything it started") {
  FakeProgram fake("sleep 30 &\nsleep 30\n");
  RunOptions o = fake.options();
  o.timeout = std::chrono::seconds(1);
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_profile(o, {}, {}, gpu_present);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(r.status == RunStatus::TimedOut);
  CHECK(r.message.find("timed out after 1 s") != std::string::npos);
  CHECK(elapsed < std::chrono::seconds(10));
}

TEST_CASE("cancellation stops a running program promptly") {
  FakeProgram fake("sleep 30\n");
  std::stop_source stop;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
  });
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_profile(fake.options(), stop.get_token(), {}, gpu_present);
  canceller.join();
  CHECK(r.status == RunStatus::Cancelled);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
}

TEST_CASE("run_process: exit codes, output files, environment, directory") {
  ScratchDir dir("warplens-subprocess-test-");
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"$A|${B-unset}|$(pwd)\"; echo err >&2; exit 3"};
  spec.env_set = {{"A", "set"}};
  spec.env_unset = {"B"};
  setenv("B", "inherited", 1);
  spec.working_directory = dir.path();
  spec.stdout_path = dir.file("out");
  spec.stderr_path = dir.file("err");
  ProcessResult r = run_process(spec);
  unsetenv("B");
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK(describe_process(r, spec) == "/bin/sh exited with code 3");
  CHECK(test::read_file(dir.file("out")) == "set|unset|" + fs::canonical(dir.path()).string() + "\n");
  CHECK(test::read_file(dir.file("err")) == "err\n");
  CHECK(tail_of_file(dir.file("out"), 4) == "...\n");  // cut at a line start
  CHECK(tail_of_file(dir.file("missing")).empty());
}

TEST_CASE("locating the injection library honours WARPLENS_INJECT_LIB") {
  ScratchDir dir("warplens-locate-test-");
  std::string lib = dir.file("libwarplens_inject.so");
  std::ofstream(lib) << "x";
  setenv(kInjectLibEnv, lib.c_str(), 1);
  std::vector<std::string> searched;
  std::string found = locate_injection_library(&searched);
  unsetenv(kInjectLibEnv);
  CHECK(found == lib);
  CHECK(searched.front() == lib);
}

TEST_CASE("nvidia-smi's CSV") {
  auto devices = parse_nvidia_smi_csv("0, NVIDIA H200, 9.0\n1, NVIDIA GeForce RTX 4090, Laptop, 8.9\n\n2, Old GPU, [N/A]\n");
  REQUIRE(devices.size() == 3);
  CHECK(devices[0].name == "NVIDIA H200");
  CHECK(devices[0].arch() == "sm_90");
  CHECK(devices[1].name == "NVIDIA GeForce RTX 4090, Laptop");
  CHECK(devices[1].arch() == "sm_89");
  CHECK(devices[2].cc_major == 0);
  CHECK(devices[2].arch().empty());
}
