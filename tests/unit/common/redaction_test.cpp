// The one redactor (common/redaction.h): by key name, by URL userinfo, by
// known value; in JSON and in text; at any depth.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "common/redaction.h"

using namespace warplens::common;
using nlohmann::json;

TEST_CASE("secret key names, and names that only look like them") {
  for (const char* k : {"apiKey", "api_key", "API-KEY", "warplens.llm.apiKey", "password", "passwd", "Authorization",
                        "token", "accessToken", "refresh_token", "GITHUB_TOKEN", "HF_TOKEN", "X-Api-Token",
                        "clientSecret", "AWS_SECRET_ACCESS_KEY", "credentials", "Cookie", "privateKey", "auth",
                        "basicAuth", "WARPLENS_LLM_API_KEY", "bearer", "pwd"})
    CHECK_MESSAGE(is_secret_key(k), k);
  for (const char* k : {"workDoneToken", "partialResultToken", "maxTokens", "max_tokens", "semanticTokens",
                        "tokenTypes", "tokenModifiers", "prompt_tokens", "endpoint", "model", "key", "kernel_key",
                        "author", "XAUTHORITY", "SSH_AUTH_SOCK", "path", ""})
    CHECK_FALSE_MESSAGE(is_secret_key(k), k);
}

TEST_CASE("JSON: values of secret keys, URLs with credentials, anywhere in the tree") {
  json message = {{"params",
                   {{"settings",
                     {{"warplens",
                       {{"llm", {{"apiKey", "sk-1"}, {"model", "m"}, {"endpoint", "http://user:pw@host:8000/v1"}}},
                        {"token", "ghp_abcdef"}}}}},
                    {"workDoneToken", "t1"},
                    {"list", {{{"password", "p"}}, "https://tok@github.com/x.git"}}}}};
  json r = redact_json(message);
  CHECK(r["params"]["settings"]["warplens"]["llm"]["apiKey"] == "<redacted>");
  CHECK(r["params"]["settings"]["warplens"]["llm"]["model"] == "m");
  CHECK(r["params"]["settings"]["warplens"]["llm"]["endpoint"] == "http://<redacted>@host:8000/v1");
  CHECK(r["params"]["settings"]["warplens"]["token"] == "<redacted>");
  CHECK(r["params"]["workDoneToken"] == "t1");
  CHECK(r["params"]["list"][0]["password"] == "<redacted>");
  CHECK(r["params"]["list"][1] == "https://<redacted>@github.com/x.git");
}

TEST_CASE("JSON: any depth is safe, and the copy can be dumped") {
  // 200,000 levels: a recursive copy or dump overflows the stack here.
  json deep = json::array();
  json* cur = &deep;
  for (int i = 0; i < 200000; ++i) {
    cur->push_back(json::array());
    cur = &(*cur)[0];
  }
  json r = redact_json(deep, 8);
  std::string text = r.dump();
  CHECK(text == "[[[[[[[[[\"<nested too deeply>\"]]]]]]]]]");
  // Taking the deep value apart without recursion either.
  while (deep.is_array() && !deep.empty()) {
    json next = std::move(deep[0]);
    deep = std::move(next);
  }
}

TEST_CASE("text: JSON-looking pairs, key=value, headers, bearer tokens, URLs") {
  CHECK(redact_text(R"({"jsonrpc":"2.0","method":"x","params":{"apiKey":"sk-live-123","model":"m"}})") ==
        R"({"jsonrpc":"2.0","method":"x","params":{"apiKey":"<redacted>","model":"m"}})");
  // A malformed body (cut off in the middle of the value).
  CHECK(redact_text(R"({"params":{"apiKey": "sk-live-12)") == R"({"params":{"apiKey": "<redacted>)");
  CHECK(redact_text(R"({"apiKey":"a\"b","x":1})") == R"({"apiKey":"<redacted>","x":1})");
  // JSON inside a JSON string, as a log of a log shows it.
  CHECK(redact_text(R"("{\"token\":\"abc123\"}")") == R"("{\"token\":\"<redacted>\"}")");
  CHECK(redact_text("password=hunter22 user=me") == "password=<redacted> user=me");
  CHECK(redact_text("Authorization: Bearer sk-abc.def") == "Authorization: <redacted>");
  CHECK(redact_text("sent with bearer sk-abc.def today") == "sent with bearer <redacted> today");
  CHECK(redact_text("token: null, apiKey: 5") == "token: null, apiKey: <redacted>");
  CHECK(redact_text("endpoint http://user:pw@10.0.0.1:8000/v1 down") == "endpoint http://<redacted>@10.0.0.1:8000/v1 down");
  CHECK(redact_text("git clone https://ghp_x@github.com/a/b") == "git clone https://<redacted>@github.com/a/b");
  CHECK(redact_text("mail me@example.com, see http://example.com/a@b") ==
        "mail me@example.com, see http://example.com/a@b");
  CHECK(redact_text("workDoneToken: \"w1\", maxTokens=5") == "workDoneToken: \"w1\", maxTokens=5");
  CHECK(redact_text("") == "");
}

TEST_CASE("registered secrets and the environment's") {
  register_secret("correct-horse-battery-staple", /*fragments=*/true);
  CHECK(redact_text("key correct-horse-battery-staple!") == "key <redacted>!");
  CHECK(redact_text("echo: correct-horse-ba...") == "echo: <redacted>...");
  ::setenv("WARPLENS_TEST_SERVICE_TOKEN", "tok-from-the-environment", 1);
  ::setenv("WARPLENS_TEST_PLAIN", "plain-value-shown", 1);
  register_environment_secrets();
  CHECK(redact_text("x tok-from-the-environment y plain-value-shown") == "x <redacted> y plain-value-shown");
  register_secret("abc");  // too short to be told from ordinary text
  CHECK(redact_text("abc") == "abc");
}

TEST_CASE("fragments of a given secret") {
  const std::string key = "sk-warplens-test-0123456789abcdef";
  CHECK(redact_secret("auth " + key + " end", key) == "auth <redacted> end");
  const std::string echoed = "Incorrect API key provided: sk-warpl**********cdef0123456789abcdef.";
  CHECK(redact_secret(echoed, key).find("0123456789abcdef") == std::string::npos);
  CHECK(redact_secret(echoed, key).find("sk-warpl") == std::string::npos);
  CHECK(redact_secret("nothing here", key) == "nothing here");
}

TEST_CASE("loggable cuts long values at a UTF-8 boundary and says how long they were") {
  std::string long_log = loggable(json{{"text", std::string(10000, 'x')}}, 100);
  CHECK(long_log.size() < 200);
  CHECK(long_log.find("(10011 bytes)") != std::string::npos);
  CHECK(loggable(json{{"a", 1}}) == R"({"a":1})");
  std::string text = loggable_text("\"apiKey\":\"" + std::string(9000, 'k') + "\"", 50);
  CHECK(text.find("kkkk") == std::string::npos);
  CHECK(loggable_text(std::string(3, 'x') + "é", 4) == "xxx... (5 bytes)");
}
