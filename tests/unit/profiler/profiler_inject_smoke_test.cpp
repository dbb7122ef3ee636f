// The injection library in a process that never uses the GPU: it must load,
// initialise, turn whatever CUPTI refuses into warnings, and still write a
// valid profile at exit. Runs on CI (with the driver stub standing in for
// libcuda.so.1) and on GPU machines (with the real driver).
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <filesystem>

#include "profiler/injection_config.h"
#include "profiler/profile_data.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;
namespace fs = std::filesystem;

TEST_CASE("the injection library loads, initialises and writes a profile at exit") {
  ScratchDir dir("warplens-inject-smoke-");
  REQUIRE(dir.ok());
  ProcessSpec spec;
  spec.argv = {WARPLENS_TEST_INJECT_LOADER, WARPLENS_TEST_INJECT_LIB};
  spec.stdout_path = dir.file("out");
  spec.stderr_path = dir.file("err");
  spec.timeout = std::chrono::seconds(60);
  InjectionConfig config;
  config.output_path = dir.file("profile-%p.json");
  config.settings.kernel_regex = "naive";
  config.settings.metric_launches = 4;
  config.verbose = true;
  spec.env_set = to_environment(config);
  spec.env_set.emplace_back("WARPLENS_PROFILE_BUDGET_MS", "not-a-number");
  // Without a driver the library cannot even be loaded: lend it the stub.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) {
    std::string stub = WARPLENS_TEST_CUDA_DRIVER_LIB;
    REQUIRE_MESSAGE(!stub.empty(), "no libcuda.so.1 and no stub to stand in for it");
    fs::create_symlink(stub, dir.file("libcuda.so.1"));
    spec.env_set.emplace_back("LD_LIBRARY_PATH", dir.path());
  }

  ProcessResult r = run_process(spec);
  std::string err = test::read_file(spec.stderr_path);
  REQUIRE_MESSAGE(r.exit_code == 0, err);

  std::vector<fs::path> written;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().rfind("profile-", 0) == 0) written.push_back(e.path());
  REQUIRE(written.size() == 1);
  std::string error;
  auto p = load_profile(written[0].string(), &error);
  REQUIRE_MESSAGE(p.has_value(), error);
  CHECK(p->schema == kSchema);
  CHECK(p->tool_version == tool_version());
  CHECK(p->settings.kernel_regex == "naive");
  CHECK(p->settings.metric_launches == 4);
  CHECK(p->settings.budget_ms == Settings{}.budget_ms);  // the bad value kept the default
  CHECK(p->has_warning("bad-setting"));
  CHECK(p->has_warning("no-kernels"));
  CHECK(p->kernels.empty());
  CHECK(p->collector.pid > 0);
  CHECK(written[0].filename() == "profile-" + std::to_string(p->collector.pid) + ".json");
  REQUIRE(p->command.size() == 2);
  CHECK(p->command[1] == WARPLENS_TEST_INJECT_LIB);
  // Verbose: the library said what it did, on the program's stderr only.
  CHECK(err.find("[warplens] injection initialised (pass metrics, metrics on, activity off, SASS setup at context, "
                 "sass mode per-launch)") != std::string::npos);
  CHECK(test::read_file(spec.stdout_path).empty());
}
