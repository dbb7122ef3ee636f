// The chat-completions client against the scripted endpoint (test double):
// URLs, the wire format, HTTP errors and retries, TLS, cancellation, and the
// API key never reaching a log or an error message.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "agent/llm/chat_client.h"
#include "agent/llm/chat_wire.h"
#include "agent/llm/endpoint_url.h"
#include "agent/llm/llm_error.h"
#include "agent/llm/text_clip.h"
#include "common/redaction.h"
#include "tests/unit/agent/llm_test_support.h"

using namespace warplens::agent::llm;
using warplens::test::ScriptedExchange;
using warplens::test::ScriptedLlmEndpoint;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kKey = "sk-warplens-test-0123456789abcdef";

LlmConfig config_for(const ScriptedLlmEndpoint& endpoint, std::string key = kKey) {
  LlmConfig c;
  c.base_url = endpoint.base_url();
  c.model = "test-model";
  c.api_key = std::move(key);
  c.timeout = 10s;
  c.max_retries = 2;
  c.retry_base_delay = 10ms;
  c.retry_max_delay = 50ms;
  return c;
}

std::vector<ChatMessage> hello() { return {ChatMessage::system("sys"), ChatMessage::user("hello")}; }

ScriptedExchange ok_reply(const std::string& text = "hi") { return llm_test::text_reply(text); }

// Runs one completion expecting an LlmError; returns it.
LlmError expect_error(const LlmConfig& config) {
  ChatClient client(config);
  try {
    client.complete(hello(), {}, {});
  } catch (const LlmError& e) {
    return e;
  }
  FAIL("expected an LlmError");
  return LlmError(LlmErrorKind::InvalidResponse, "unreachable");
}

void check_no_failures(const ScriptedLlmEndpoint& endpoint) {
  for (const auto& f : endpoint.failures()) FAIL_CHECK(f);
}

}  // namespace

TEST_CASE("base URLs: scheme, host, port, path prefix") {
  auto u = parse_endpoint_url("http://localhost:8000/v1");
  REQUIRE(u);
  CHECK_FALSE(u->tls);
  CHECK(u->host == "localhost");
  CHECK(u->port == 8000);
  CHECK(u->target("/chat/completions") == "/v1/chat/completions");
  CHECK(u->host_header() == "localhost:8000");

  u = parse_endpoint_url("https://api.example.com/v1/");
  REQUIRE(u);
  CHECK(u->tls);
  CHECK(u->port == 443);
  CHECK(u->path_prefix == "/v1");
  CHECK(u->host_header() == "api.example.com");

  u = parse_endpoint_url("HTTP://[::1]:11434/v1/chat/completions");
  REQUIRE(u);
  CHECK(u->host == "::1");
  CHECK(u->port == 11434);
  CHECK(u->path_prefix == "/v1");
  CHECK(u->to_string() == "http://[::1]:11434/v1");

  u = parse_endpoint_url("https://gateway.corp/llm/openai/v1");
  REQUIRE(u);
  CHECK(u->target("/chat/completions") == "/llm/openai/v1/chat/completions");

  std::string error;
  CHECK_FALSE(parse_endpoint_url("localhost:8000/v1", &error));
  CHECK(error.find("no scheme") != std::string::npos);
  CHECK_FALSE(parse_endpoint_url("ftp://x/v1", &error));
  CHECK(error.find("not supported") != std::string::npos);
  CHECK_FALSE(parse_endpoint_url("http://x:99999/v1", &error));
  CHECK(error.find("port") != std::string::npos);
  CHECK_FALSE(parse_endpoint_url("https://user:hunter2@x/v1", &error));
  CHECK(error.find("WARPLENS_LLM_API_KEY") != std::string::npos);
  CHECK(error.find("hunter2") == std::string::npos);
  CHECK_FALSE(parse_endpoint_url("http://x/v1?key=1", &error));
  CHECK_FALSE(parse_endpoint_url("", &error));
}

TEST_CASE("config validation and description never show the key") {
  LlmConfig c;
  c.base_url = "http://localhost:8000/v1";
  CHECK(validate(c).find("no model") != std::string::npos);
  c.model = "m";
  CHECK(validate(c).empty());
  c.api_key = kKey;
  CHECK(describe(c).find(kKey) == std::string::npos);
  CHECK(describe(c).find("key: set") != std::string::npos);
  c.base_url = "https://me:secretpw@host/v1";
  CHECK(describe(c).find("secretpw") == std::string::npos);
  CHECK_THROWS_AS(ChatClient{c}, LlmError);
}

TEST_CASE("redaction removes the key and fragments of it") {
  using warplens::common::redact_secret;
  CHECK(redact_secret("auth " + kKey + " end", kKey) == "auth <redacted> end");
  // What hosted APIs echo: a prefix and a suffix around stars.
  const std::string echoed = "Incorrect API key provided: sk-warpl**********cdef0123456789abcdef.";
  CHECK(redact_secret(echoed, kKey).find("0123456789abcdef") == std::string::npos);
  CHECK(redact_secret(echoed, kKey).find("sk-warpl") == std::string::npos);
  CHECK(redact_secret("nothing here", kKey) == "nothing here");
  CHECK(redact_secret("abc", "") == "abc");
  CHECK(redact_secret("a secret b", "secret") == "a <redacted> b");
  CHECK(clip("héllo", 2) == "h...");
}

TEST_CASE("wire format: the variants servers send decode to the same completion") {
  auto c = decode_chat_completion(R"({"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
    "tool_calls":[{"type":"function","function":{"name":"read_file","arguments":{"path":"x.cu"}}}]},"finish_reason":"tool_calls"}],
    "usage":{"prompt_tokens":7,"completion_tokens":3}})");
  CHECK(c.message.content == "ab");
  REQUIRE(c.message.tool_calls.size() == 1);
  CHECK(c.message.tool_calls[0].id == "call_1");  // synthesised: the server sent none
  CHECK(json::parse(c.message.tool_calls[0].arguments) == json{{"path", "x.cu"}});
  CHECK(c.prompt_tokens == 7);

  c = decode_chat_completion(R"({"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"think"}}]})");
  CHECK_FALSE(c.message.content);
  CHECK(c.reasoning == "think");

  CHECK(error_message_from_body(R"({"object":"error","message":"bad things","code":400})") == "bad things");
  CHECK(error_message_from_body(R"({"error":{"message":"nope","type":"x"}})") == "nope");
  CHECK(error_message_from_body(R"({"detail":"Not Found"})") == "Not Found");
  CHECK(error_message_from_body("<html>502</html>") == "<html>502</html>");

  LlmConfig cfg;
  cfg.model = "m";
  cfg.temperature = 0.3;
  ChatMessage assistant{"assistant", std::nullopt, {{"call_9", "compile", "{}"}}, "", ""};
  json body = json::parse(encode_chat_request(cfg, {ChatMessage::user("u"), assistant,
                                                    ChatMessage::tool_result(assistant.tool_calls[0], "ok")},
                                              {{"compile", "d", {{"type", "object"}}}}));
  CHECK(body["model"] == "m");
  CHECK(body["temperature"] == 0.3);
  CHECK(body["tool_choice"] == "auto");
  CHECK(body["messages"][1]["content"].is_null());
  CHECK(body["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}");
  CHECK(body["messages"][2]["tool_call_id"] == "call_9");
  CHECK_FALSE(body.contains("max_tokens"));
}

TEST_CASE("a plain HTTP completion: headers, body and reply") {
  ScriptedLlmEndpoint endpoint({{json{{"authorization", "Bearer " + kKey}, {"model", "test-model"},
                                      {"roles", {"system", "user"}}, {"temperature", nullptr}},
                                 json{{"reply", {{"content", "hello back"}}}}}});
  ChatClient client(config_for(endpoint));
  ChatCompletion c = client.complete(hello(), {}, {});
  CHECK(c.message.content == "hello back");
  CHECK(c.finish_reason == "stop");
  check_no_failures(endpoint);
  REQUIRE(endpoint.requests().size() == 1);
  CHECK(endpoint.requests()[0].target == "/v1/chat/completions");
  CHECK(endpoint.requests()[0].headers.at("content-type") == "application/json");
}

TEST_CASE("a chunked response body") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"chunked", true}, {"reply", {{"content", "in chunks"}}}}}});
  ChatClient client(config_for(endpoint));
  CHECK(client.complete(hello(), {}, {}).message.content == "in chunks");
}

TEST_CASE("no key configured: no Authorization header") {
  ScriptedLlmEndpoint endpoint({{json{{"authorization", nullptr}}, json{{"reply", {{"content", "ok"}}}}}});
  ChatClient client(config_for(endpoint, ""));
  CHECK(client.complete(hello(), {}, {}).message.content == "ok");
  check_no_failures(endpoint);
}

TEST_CASE("HTTP errors become clear LlmErrors") {
  SUBCASE("401: the key") {
    ScriptedLlmEndpoint endpoint({llm_test::status(401, {{"error", {{"message", "Invalid API key"}}}})});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::Authentication);
    CHECK(std::string(e.what()).find("did not accept it") != std::string::npos);
    CHECK(endpoint.requests().size() == 1);  // never retried
  }
  SUBCASE("401 without a key says to set one") {
    ScriptedLlmEndpoint endpoint({llm_test::status(401, {{"error", "unauthorized"}})});
    LlmError e = expect_error(config_for(endpoint, ""));
    CHECK(std::string(e.what()).find("No API key is set") != std::string::npos);
    CHECK(std::string(e.what()).find("WARPLENS_LLM_API_KEY") != std::string::npos);
  }
  SUBCASE("404: the path prefix") {
    ScriptedLlmEndpoint endpoint({llm_test::status(404, {{"detail", "Not Found"}})});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::NotFound);
    CHECK(std::string(e.what()).find("end in /v1") != std::string::npos);
  }
  SUBCASE("404: the model") {
    ScriptedLlmEndpoint endpoint(
        {llm_test::status(404, {{"object", "error"}, {"message", "The model `test-model` does not exist."}})});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::NotFound);
    CHECK(std::string(e.what()).find("model 'test-model' is not served") != std::string::npos);
  }
  SUBCASE("400 from vLLM without tool parsing: no tool support") {
    ScriptedLlmEndpoint endpoint({llm_test::status(
        400, {{"object", "error"},
              {"message", "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}})});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::NoToolSupport);
    CHECK(std::string(e.what()).find("--enable-auto-tool-choice") != std::string::npos);
  }
  SUBCASE("400 from Ollama for a model without tools") {
    ScriptedLlmEndpoint endpoint(
        {llm_test::status(400, {{"error", {{"message", "registry.ollama.ai/library/gemma:2b does not support tools"}}}})});
    CHECK(expect_error(config_for(endpoint)).kind() == LlmErrorKind::NoToolSupport);
  }
  SUBCASE("400 context too long") {
    ScriptedLlmEndpoint endpoint({llm_test::status(
        400, {{"object", "error"}, {"message", "This model's maximum context length is 32768 tokens."}})});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::Rejected);
    CHECK(std::string(e.what()).find("context window") != std::string::npos);
  }
  SUBCASE("500 every time: bounded retries, then a server error") {
    ScriptedLlmEndpoint endpoint({llm_test::status(500, {{"error", "boom"}}), llm_test::status(502, {{"error", "boom"}}),
                                  llm_test::status(503, {{"error", "boom"}})});
    const auto t0 = std::chrono::steady_clock::now();
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::ServerError);
    CHECK(std::string(e.what()).find("gave up after 3 attempts") != std::string::npos);
    CHECK(endpoint.requests().size() == 3);
    CHECK(endpoint.unused_exchanges() == 0);
    CHECK(std::chrono::steady_clock::now() - t0 >= 30ms);  // 10 ms + 20 ms of backoff
    check_no_failures(endpoint);  // the retries repeated the request exactly
  }
  SUBCASE("malformed JSON in a 200") {
    ScriptedLlmEndpoint endpoint({{json::object(), json{{"raw_body", "{\"choices\": [ {\"mess"}}}});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::InvalidResponse);
    CHECK(std::string(e.what()).find("not valid JSON") != std::string::npos);
  }
  SUBCASE("JSON that is not a completion") {
    ScriptedLlmEndpoint endpoint({{json::object(), json{{"body", {{"data", json::array()}}}}}});
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::InvalidResponse);
    CHECK(std::string(e.what()).find("\"choices\"") != std::string::npos);
  }
}

TEST_CASE("429 then success: retried after Retry-After") {
  ScriptedLlmEndpoint endpoint({llm_test::status(429, {{"error", {{"message", "rate limited"}}}}, {{"Retry-After", "0"}}),
                                ok_reply("after the wait")});
  LlmConfig config = config_for(endpoint);
  config.retry_base_delay = 5s;  // Retry-After: 0 must win over our own backoff
  ChatClient client(config);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(client.complete(hello(), {}, {}).message.content == "after the wait");
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  CHECK(endpoint.requests().size() == 2);
  check_no_failures(endpoint);
}

TEST_CASE("429 on every attempt: rate-limited error") {
  ScriptedLlmEndpoint endpoint({llm_test::status(429, {{"error", "slow down"}}), llm_test::status(429, {{"error", "slow down"}}),
                                llm_test::status(429, {{"error", "slow down"}})});
  LlmError e = expect_error(config_for(endpoint));
  CHECK(e.kind() == LlmErrorKind::RateLimited);
  CHECK(std::string(e.what()).find("slow down") != std::string::npos);
}

TEST_CASE("a dropped connection is retried") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"hang_up", true}}}, ok_reply("second try")});
  ChatClient client(config_for(endpoint));
  CHECK(client.complete(hello(), {}, {}).message.content == "second try");
  CHECK(endpoint.requests().size() == 2);
}

TEST_CASE("connection refused names the port") {
  unsigned short port = 0;
  {
    ScriptedLlmEndpoint gone({});
    port = gone.port();
  }  // closed: nothing listens there now
  LlmConfig c;
  c.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  c.model = "m";
  LlmError e = expect_error(c);
  CHECK(e.kind() == LlmErrorKind::Connection);
  CHECK(std::string(e.what()).find("connection refused") != std::string::npos);
  CHECK(std::string(e.what()).find(std::to_string(port)) != std::string::npos);
}

TEST_CASE("a server slower than the timeout") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"delay_ms", 4000}, {"reply", {{"content", "late"}}}}}});
  LlmConfig config = config_for(endpoint);
  config.timeout = 1s;
  const auto t0 = std::chrono::steady_clock::now();
  LlmError e = expect_error(config);
  CHECK(e.kind() == LlmErrorKind::Timeout);
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
}

TEST_CASE("cancellation closes the request in flight") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"delay_ms", 10000}, {"reply", {{"content", "too late"}}}}}});
  ChatClient client(config_for(endpoint));
  std::stop_source stop;
  std::jthread canceller([&] {
    std::this_thread::sleep_for(300ms);
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  try {
    client.complete(hello(), {}, stop.get_token());
    FAIL("expected cancellation");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::Cancelled);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  for (int i = 0; i < 100 && !endpoint.client_hung_up_during_delay(); ++i) std::this_thread::sleep_for(10ms);
  CHECK(endpoint.client_hung_up_during_delay());
}

TEST_CASE("https with a self-signed certificate") {
  const std::string dir = llm_test::scratch("tls");
  const auto cert = warplens::test::make_self_signed_certificate(dir);

  SUBCASE("trusted through the CA file") {
    ScriptedLlmEndpoint endpoint({ok_reply("secure hello")}, cert);
    LlmConfig config = config_for(endpoint);
    CHECK(config.base_url.rfind("https://127.0.0.1:", 0) == 0);
    config.ca_file = cert.cert_file;
    ChatClient client(config);
    CHECK(client.complete(hello(), {}, {}).message.content == "secure hello");
    check_no_failures(endpoint);
  }
  SUBCASE("refused without it: verification is on by default") {
    ScriptedLlmEndpoint endpoint({ok_reply()}, cert);
    LlmError e = expect_error(config_for(endpoint));
    CHECK(e.kind() == LlmErrorKind::Tls);
    CHECK(std::string(e.what()).find("self-signed") != std::string::npos);
    CHECK(std::string(e.what()).find("CA file") != std::string::npos);
    CHECK(endpoint.requests().empty());
  }
  SUBCASE("a certificate for another host is refused even with the CA file") {
    const auto other = warplens::test::make_self_signed_certificate(llm_test::scratch("tls-other"), "IP:10.9.8.7");
    ScriptedLlmEndpoint endpoint({ok_reply()}, other);
    LlmConfig config = config_for(endpoint);
    config.ca_file = other.cert_file;
    LlmError e = expect_error(config);
    CHECK(e.kind() == LlmErrorKind::Tls);
    CHECK(std::string(e.what()).find("mismatch") != std::string::npos);
  }
  SUBCASE("verification can be switched off") {
    ScriptedLlmEndpoint endpoint({ok_reply("unverified")}, cert);
    LlmConfig config = config_for(endpoint);
    config.verify_tls = false;
    ChatClient client(config);
    CHECK(client.complete(hello(), {}, {}).message.content == "unverified");
  }
  SUBCASE("an unreadable CA file") {
    ScriptedLlmEndpoint endpoint({ok_reply()}, cert);
    LlmConfig config = config_for(endpoint);
    config.ca_file = dir + "/missing.pem";
    LlmError e = expect_error(config);
    CHECK(e.kind() == LlmErrorKind::Tls);
    CHECK(std::string(e.what()).find("missing.pem") != std::string::npos);
  }
}

TEST_CASE("the API key never reaches the logs or error messages") {
  llm_test::LogCapture logs;
  std::string errors;
  // Servers that echo the key back in error bodies and even in replies.
  ScriptedLlmEndpoint endpoint(
      {llm_test::status(500, {{"error", {{"message", "upstream failed for key " + kKey}}}}),
       {json::object(), json{{"status", 401}, {"raw_body", "Incorrect API key provided: " + kKey.substr(0, 10) +
                                                                "*****" + kKey.substr(kKey.size() - 8)}}},
       {json{{"authorization", "Bearer " + kKey}}, json{{"reply", {{"content", "your key is " + kKey}}}}},
       {json::object(), json{{"raw_body", "not json " + kKey}}},
       llm_test::status(503, {{"error", kKey}}), llm_test::status(503, {{"error", kKey}}),
       llm_test::status(503, {{"error", kKey}})});
  LlmConfig config = config_for(endpoint);
  ChatClient client(config);
  std::vector<ChatMessage> messages = hello();
  for (int i = 0; i < 4; ++i) {
    try {
      ChatCompletion reply = client.complete(messages, {}, {});
      messages.push_back(reply.message);  // the conversation goes on
      messages.push_back(ChatMessage::user("and now?"));
    } catch (const LlmError& e) {
      errors += std::string(e.what()) + "\n";
    }
  }
  const std::string log = logs.text();
  CHECK(endpoint.requests().size() == 7);
  CHECK(log.find("llm: POST") != std::string::npos);  // the capture works
  CHECK(log.find("<redacted>") != std::string::npos);  // and saw the echoed key
  CHECK(log.find(kKey) == std::string::npos);
  CHECK(log.find(kKey.substr(kKey.size() - 8)) == std::string::npos);
  CHECK(log.find("Bearer") == std::string::npos);
  CHECK(errors.find("refused the request") != std::string::npos);
  CHECK(errors.find(kKey) == std::string::npos);
  CHECK(errors.find(kKey.substr(0, 10)) == std::string::npos);
  check_no_failures(endpoint);
}
