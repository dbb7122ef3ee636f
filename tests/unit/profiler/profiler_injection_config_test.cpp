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

TEST_CASE("the SASS dump travels only when set; the setup diagnostic is left to the environment") {
  InjectionConfig c;
  std::map<std::string, std::string> env;
  for (auto& [k, v] : to_environment(c)) env[k] = v;
  // An empty dump path and the setup are not set, so a value in the
  // runner's own environment reaches the program.
  CHECK_FALSE(env.count("WARPLENS_PROFILE_SASS_DUMP"));
  CHECK_FALSE(env.count("WARPLENS_PROFILE_SASS_SETUP"));
  c.sass_dump_path = "/tmp/dump-%p.tsv";
  c.sass_setup = SassSetup::Launch;
  env.clear();
  for (auto& [k, v] : to_environment(c)) env[k] = v;
  CHECK(env.at("WARPLENS_PROFILE_SASS_DUMP") == "/tmp/dump-%p.tsv");
  CHECK_FALSE(env.count("WARPLENS_PROFILE_SASS_SETUP"));

  std::vector<std::string> problems;
  InjectionConfig back = config_from_environment(
      from({{"WARPLENS_PROFILE_SASS_DUMP", "/d/x.tsv"}, {"WARPLENS_PROFILE_SASS_SETUP", "launch"}}), &problems);
  CHECK(problems.empty());
  CHECK(back.sass_dump_path == "/d/x.tsv");
  CHECK(back.sass_setup == SassSetup::Launch);

  InjectionConfig defaults = config_from_environment(from({}), &problems);
  CHECK(defaults.sass_setup == SassSetup::Context);  // the probe's order
  CHECK(defaults.sass_dump_path.empty());

  InjectionConfig bad = config_from_environment(from({{"WARPLENS_PROFILE_SASS_SETUP", "later"}}), &problems);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "WARPLENS_PROFILE_SASS_SETUP=\"later\" is not context or launch; using the default");
  CHECK(bad.sass_setup == SassSetup::Context);
  CHECK(to_string(SassSetup::Context) == std::string("context"));
  CHECK(sass_setup_from_string("launch") == SassSetup::Launch);
  CHECK_FALSE(sass_setup_from_string("x"));
}

TEST_CASE("the Activity API: always written by the runner; unset, on exactly when metrics are off") {
  // The runner's two passes.
  for (bool metrics : {true, false}) {
    InjectionConfig c;
    c.settings.metrics = metrics;
    c.activity = !metrics;
    std::map<std::string, std::string> env;
    for (auto& [k, v] : to_environment(c)) env[k] = v;
    CHECK(env.at("WARPLENS_PROFILE_ACTIVITY") == (metrics ? "0" : "1"));
    std::vector<std::string> problems;
    CHECK(config_from_environment(from(env), &problems).activity == !metrics);
    CHECK(problems.empty());
  }
  std::vector<std::string> problems;
  // A program started by hand: never both (the combination that zeroed the SASS values).
  CHECK_FALSE(config_from_environment(from({}), &problems).activity);
  CHECK(config_from_environment(from({{"WARPLENS_PROFILE_METRICS", "0"}}), &problems).activity);
  // Both on only when asked for explicitly (a diagnostic).
  CHECK(config_from_environment(from({{"WARPLENS_PROFILE_ACTIVITY", "1"}}), &problems).activity);
  CHECK(problems.empty());
  InjectionConfig bad = config_from_environment(from({{"WARPLENS_PROFILE_ACTIVITY", "maybe"}}), &problems);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "WARPLENS_PROFILE_ACTIVITY=\"maybe\" is not 0 or 1; using the default");
  CHECK_FALSE(bad.activity);
}
