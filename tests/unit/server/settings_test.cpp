#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "server/settings.h"
#include "server/settings_schema.h"

using namespace warplens;
using namespace warplens::server;
using nlohmann::json;

TEST_CASE("settings map onto AnalysisOptions") {
  std::vector<std::string> problems;
  json update = {{"warplens",
                  {{"arch", "sm_90a"},
                   {"cudaPath", "/opt/cuda"},
                   {"compileCommandsDir", "/w/build"},
                   {"thresholds", {{"uncoalesced", 2.0}, {"bankConflict", 8}, {"occupancy", 0.25}}},
                   {"defaultBlockSize", 128},
                   {"kernelBlockSizes", {{"transpose", {32, 8}}, {"reduce", {{"x", 512}}}}},
                   {"debounceMs", 0},
                   {"profileCommand", "./app --small"},
                   {"buildCommand", "make"},
                   {"llm", {{"endpoint", "http://127.0.0.1:8000/v1"}, {"model", "m"}}}}}};
  Settings s = apply_settings(Settings{}, update, problems);
  CHECK(problems.empty());
  AnalysisOptions o = to_analysis_options(s);
  CHECK(o.arch == "sm_90a");
  CHECK(o.cuda_path == "/opt/cuda");
  CHECK(o.compile_commands_dir == "/w/build");
  CHECK(o.uncoalesced_threshold == doctest::Approx(2.0));
  CHECK(o.bank_conflict_threshold == 8);
  CHECK(o.occupancy_threshold == doctest::Approx(0.25));
  CHECK(o.default_block == BlockShape{128, 1, 1});
  CHECK(o.kernel_blocks.at("transpose") == BlockShape{32, 8, 1});
  CHECK(o.kernel_blocks.at("reduce") == BlockShape{512, 1, 1});
  CHECK(s.debounce_ms == 0);
  CHECK(s.profile_command == "./app --small");
  CHECK(s.build_command == "make");
  CHECK(s.llm.endpoint == "http://127.0.0.1:8000/v1");
}

TEST_CASE("only settings that reach the engine count as analysis changes") {
  Settings a, b;
  b.debounce_ms = 5;
  b.llm.model = "m";
  b.profile_command = "./app";
  CHECK_FALSE(analysis_settings_differ(a, b));
  b.kernel_blocks["k"] = BlockShape{64, 1, 1};
  CHECK(analysis_settings_differ(a, b));
  Settings c;
  c.occupancy_threshold = 0.3;
  CHECK(analysis_settings_differ(a, c));
}

TEST_CASE("the inner object is accepted too, and unspecified settings keep their values") {
  std::vector<std::string> problems;
  Settings base;
  base.arch = "sm_80";
  base.debounce_ms = 100;
  Settings s = apply_settings(base, json{{"cudaPath", "/c"}}, problems);
  CHECK(problems.empty());
  CHECK(s.arch == "sm_80");
  CHECK(s.debounce_ms == 100);
  CHECK(s.cuda_path == "/c");
  CHECK(apply_settings(base, nullptr, problems).arch == "sm_80");
}

TEST_CASE("bad values are reported and leave the setting unchanged") {
  std::vector<std::string> problems;
  json update = {{"warplens",
                  {{"arch", "compute_90"},
                   {"thresholds", {{"uncoalesced", 0.5}, {"bankConflict", "two"}, {"mystery", 1}}},
                   {"defaultBlockSize", {64, 64}},
                   {"kernelBlockSizes", {{"k", -1}}},
                   {"debounceMs", 99999},
                   {"llm", {{"apiKey", "sk-123"}}},
                   {"colour", "blue"}}}};
  Settings s = apply_settings(Settings{}, update, problems);
  CHECK(s.arch == "sm_90");
  CHECK(s.uncoalesced_threshold == doctest::Approx(1.25));
  CHECK(s.bank_conflict_threshold == 2);
  CHECK_FALSE(s.default_block);
  CHECK(s.kernel_blocks.empty());
  CHECK_FALSE(s.debounce_ms);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  for (const char* expected : {"warplens.arch", "warplens.thresholds.uncoalesced", "warplens.thresholds.bankConflict",
                               "unknown setting warplens.thresholds.mystery", "1024 threads",
                               "warplens.kernelBlockSizes.k", "warplens.debounceMs", "warplens.llm.apiKey",
                               "unknown setting warplens.colour"})
    CHECK_MESSAGE(all.find(expected) != std::string::npos, expected);
  CHECK(all.find("sk-123") == std::string::npos);
  std::vector<std::string> more;
  apply_settings(Settings{}, json{{"warplens", 3}}, more);
  CHECK(more.size() == 1);
}

TEST_CASE("the schema and the server agree on every setting") {
  // Every server setting of server/settings_schema.json has code, and no code
  // reads a setting the schema (and so the editors) does not know.
  CHECK(settings_without_setter() == std::vector<std::string>{});
  // The schema's defaults are the server's: applying them to a changed
  // Settings gives Settings{} back, without a warning.
  Settings changed;
  std::vector<std::string> problems;
  changed = apply_settings(changed, json{{"arch", "sm_80"}, {"thresholds", {{"occupancy", 0.1}}},
                                         {"kernelBlockSizes", {{"k", 64}}}, {"clangDiagnostics", "off"},
                                         {"debounceMs", 5}, {"llm", {{"model", "m"}}}},
                           problems);
  json defaults = json::object();
  for (const auto& spec : setting_specs()) {
    if (!spec.server) continue;
    json* at = &defaults;
    std::string key = spec.key;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      at = &(*at)[key.substr(0, dot)];
      key = key.substr(dot + 1);
    }
    (*at)[key] = spec.schema.at("default");
  }
  Settings reset = apply_settings(changed, defaults, problems);
  CHECK(problems.empty());
  json shown = settings_to_json(reset);
  json fresh = settings_to_json(Settings{});
  CHECK(shown == fresh);
  // Each schema default also reads back as the server shows it.
  CHECK(fresh["arch"] == find_setting("arch")->schema["default"]);
  CHECK(fresh["thresholds"]["uncoalesced"] == find_setting("thresholds.uncoalesced")->schema["default"]);
  CHECK(fresh["clangDiagnostics"] == find_setting("clangDiagnostics")->schema["default"]);
}

TEST_CASE("schema checks: range, pattern and enum come from the schema") {
  std::vector<std::string> problems;
  Settings s = apply_settings(Settings{}, json{{"clangDiagnostics", "sometimes"}, {"arch", "sm_9"}}, problems);
  CHECK(s.clang_diagnostics == "auto");
  CHECK(s.arch == "sm_90");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "setting warplens.arch ignored: expected an architecture such as sm_80 or sm_90a");
  CHECK(problems[1] == "setting warplens.clangDiagnostics ignored: expected \"auto\", \"on\" or \"off\"");
  problems.clear();
  s = apply_settings(s, json{{"clangDiagnostics", "off"}, {"arch", "sm_100f"}, {"debounceMs", nullptr}}, problems);
  CHECK(problems.empty());
  CHECK_FALSE(s.clang_diagnostics_shown());
  CHECK(s.arch == "sm_100f");
  CHECK_FALSE(s.debounce_ms);
}

TEST_CASE("every setting is documented") {
  auto read = [](const std::string& rel) {
    std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/" + rel);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string configuration = read("docs/configuration.md");
  const std::string editors = read("docs/editors.md");
  REQUIRE_FALSE(configuration.empty());
  REQUIRE_FALSE(editors.empty());
  for (const auto& spec : setting_specs()) {
    if (spec.server)
      CHECK_MESSAGE(configuration.find("| `" + spec.key + "` |") != std::string::npos,
                    "docs/configuration.md lacks a row for " << spec.key);
    CHECK_MESSAGE(editors.find("| `warplens." + spec.key + "` |") != std::string::npos,
                  "docs/editors.md lacks a row for warplens." << spec.key);
  }
}

TEST_CASE("the API key comes from the environment only and is never shown") {
  setenv("WARPLENS_LLM_API_KEY", "sk-env-secret", 1);
  CHECK(workflows::llm_api_key() == "sk-env-secret");
  json shown = settings_to_json(Settings{});
  CHECK(shown["llm"]["apiKeySet"] == true);
  CHECK(shown.dump().find("sk-env-secret") == std::string::npos);
  unsetenv("WARPLENS_LLM_API_KEY");
  CHECK(workflows::llm_api_key().empty());
}

#include "server/listen_address.h"

TEST_CASE("--listen accepts loopback addresses only") {
  std::string error;
  auto v4 = parse_listen_address("127.0.0.1:9257", error);
  REQUIRE(v4);
  CHECK(v4->port == 9257);
  CHECK(v4->address.is_loopback());
  CHECK(parse_listen_address("127.8.9.10:0", error));
  auto v6 = parse_listen_address("[::1]:80", error);
  REQUIRE(v6);
  CHECK(v6->address.is_v6());
  CHECK(parse_listen_address("localhost:1", error)->address.to_string() == "127.0.0.1");
  for (const char* bad : {"0.0.0.0:1", "[::]:1", "10.0.0.1:1", "example.org:1", "127.0.0.1", "127.0.0.1:",
                          "127.0.0.1:65536", "127.0.0.1:-1", ":80"}) {
    CAPTURE(bad);
    error.clear();
    CHECK_FALSE(parse_listen_address(bad, error));
    CHECK_FALSE(error.empty());
  }
  parse_listen_address("0.0.0.0:1", error);
  CHECK(error.find("not a loopback address") != std::string::npos);
}

TEST_CASE("fallbackFlags become extra clang flags, relative paths against the workspace folder") {
  std::vector<std::string> problems;
  Settings s = apply_settings(
      Settings{}, json{{"fallbackFlags", {"-I", "include", "-Ithird_party", "-DN=4", "-std=c++20", "-o", "x.o"}}},
      problems);
  CHECK(problems.empty());
  CHECK(s.fallback_flags.size() == 7);
  CHECK(to_analysis_options(s, "/w").extra_args ==
        std::vector<std::string>{"-I", "/w/include", "-I/w/third_party", "-DN=4", "-std=c++20"});
  // Without a workspace folder they stay as written (outputs still dropped).
  CHECK(to_analysis_options(s).extra_args ==
        std::vector<std::string>{"-I", "include", "-Ithird_party", "-DN=4", "-std=c++20"});
  CHECK(to_analysis_options(Settings{}).extra_args.empty());
  CHECK(analysis_settings_differ(Settings{}, s));
  CHECK(settings_to_json(s)["fallbackFlags"].size() == 7);
  // null resets it.
  CHECK(apply_settings(s, json{{"fallbackFlags", nullptr}}, problems).fallback_flags.empty());
}

TEST_CASE("fallbackFlags that load code, or that are not strings, are refused") {
  std::vector<std::string> problems;
  Settings base;
  base.fallback_flags = {"-DKEPT"};
  for (const json& bad : {json{"-DX", "-fplugin=./evil.so"}, json{"-Xclang", "-load"}, json{"-B./bin"},
                          json{"-DX", 3}, json("-DX")}) {
    CAPTURE(bad.dump());
    problems.clear();
    Settings s = apply_settings(base, json{{"fallbackFlags", bad}}, problems);
    CHECK(s.fallback_flags == std::vector<std::string>{"-DKEPT"});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find("warplens.fallbackFlags") != std::string::npos);
  }
}
