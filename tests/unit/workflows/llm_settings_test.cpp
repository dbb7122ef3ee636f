// The LLM settings are checked in one place (workflows/llm_settings.h), in
// the words of the door they came from.
#include <doctest/doctest.h>

#include "tests/support/agent_requirements.h"
#include "workflows/llm_settings.h"

namespace warplens {

using test::needs;
using workflows::LlmSettings;
using workflows::SettingNames;

namespace {

std::string error_for(const LlmSettings& s, const SettingNames& names, const std::string& key = "") {
  std::string error;
  auto config = workflows::llm_config(s, key, names, error);
  return config ? std::string() : error;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a missing endpoint or model is named as the door calls it") {
  CHECK(error_for({"", "m"}, SettingNames::editor()) ==
        "the LLM policy needs an endpoint: warplens.llm.endpoint is not set (clear warplens.llm.endpoint and "
        "warplens.llm.model to use the built-in rewrite search)");
  CHECK(error_for({"http://localhost:8000/v1", ""}, SettingNames::command_line()) ==
        "the LLM policy needs a model: --llm-model (or WARPLENS_LLM_MODEL) is not set");
}

TEST_CASE("a build without the LLM policy says so, whatever the URL" * needs("no-llm-policy")) {
  std::string e = error_for({"http://user:hunter2@example.com/v1", "m"}, SettingNames::command_line());
  CHECK(contains(e, "--llm-endpoint (or WARPLENS_LLM_BASE_URL) is set but this warplens was built without the LLM "
                    "policy"));
  CHECK(!contains(e, "hunter2"));
}

TEST_CASE("URLs and keys: the same checks for every door, credentials never quoted" * needs("llm-policy")) {
  for (const SettingNames& names : {SettingNames::editor(), SettingNames::command_line()}) {
    std::string e = error_for({"https://user:hunter2@models.example.com/v1?x=1", "m"}, names);
    CHECK(contains(e, names.llm_endpoint + " is not usable"));
    CHECK(!contains(e, "hunter2"));
    e = error_for({"https://api.example.com/v1", "m"}, names);
    CHECK(contains(e, "no API key for the LLM endpoint https://api.example.com"));
    CHECK(contains(e, names.llm_key_help));
    CHECK(error_for({"https://api.example.com/v1", "m"}, names, "sk-test").empty());
    CHECK(error_for({"http://127.0.0.1:8000/v1", "m"}, names).empty());  // a local server needs no key
  }
  std::string error;
  auto config = workflows::llm_config({"http://localhost:8000/v1", "m", 7}, "", SettingNames::editor(), error);
  REQUIRE(config);
  CHECK(config->max_turns == 7);
}

}  // namespace warplens
