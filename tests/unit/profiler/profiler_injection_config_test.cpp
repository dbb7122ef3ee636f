#include <doctest/doctest.h>

#include <map>

#include "profiler/injection_config.h"

using namespace warplens::profile;

namespace {
std::function<const char*(const char*)> from(const std::map<std::string, std::string>& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST_CASE("the runner's environment is what the library reads back") {
  InjectionConfig c;
  c.output_path = "/tmp/x/profile-%p.json";
  c.settings.kernel_regex = "naive|tiled";
  c.settings.metric_launches = 3;
  c.settings.launch_records = 9;
  c.settings.budget_ms = 1500;
  c.settings.metrics = false;
  c.settings.sass_mode = SassMode::WholeRun;
  c.pass = "timing";
  c.verbose = true;
  std::map<std::string, std::string> env;
  for (auto& [k, v] : to_environment(c)) env[k] = v;
  CHECK(env.at("WARPLENS_PROFILE_BUDGET_MS") == "1500");
  std::vector<std::string> problems;
  InjectionConfig back = config_from_environment(from(env), &problems);
  CHECK(problems.empty());
  CHECK(back.output_path == c.output_path);
  CHECK(back.settings == c.settings);
  CHECK(back.pass == "timing");
  CHECK(back.verbose);
}

TEST_CASE("bad values keep the defaults and are reported") {
  std::map<std::string, std::string> env = {{"WARPLENS_PROFILE_METRIC_LAUNCHES", "many"},
                                            {"WARPLENS_PROFILE_BUDGET_MS", "-5"},
                                            {"WARPLENS_PROFILE_METRICS", "perhaps"},
                                            {"WARPLENS_PROFILE_SASS_MODE", "sometimes"},
                                            {"WARPLENS_PROFILE_PASS", "third"}};
  std::vector<std::string> problems;
  InjectionConfig c = config_from_environment(from(env), &problems);
  CHECK(problems.size() == 5);
  CHECK(c.settings == Settings{});
  CHECK(c.pass == "metrics");
  CHECK(problems[0] == "WARPLENS_PROFILE_METRIC_LAUNCHES=\"many\" is not a non-negative integer; using the default");
}

TEST_CASE("an empty environment gives the defaults") {
  std::vector<std::string> problems;
  InjectionConfig c = config_from_environment(from({}), &problems);
  CHECK(problems.empty());
  CHECK(c.output_path.empty());
  CHECK(c.settings.metric_launches == 1);
  CHECK(c.settings.metrics);
}

TEST_CASE("%p in the output path becomes the process id") {
  CHECK(expand_output_path("/d/profile-%p.json", 4242) == "/d/profile-4242.json");
  CHECK(expand_output_path("/d/%p/%p", 7) == "/d/7/7");
  CHECK(expand_output_path("/d/plain.json", 7) == "/d/plain.json");
  CHECK(expand_output_path("/d/100%", 7) == "/d/100%");
}
