// TEST DOUBLE: a scripted OpenAI-compatible chat-completions endpoint.
//
// An HTTP (or HTTPS) server on 127.0.0.1 with an ephemeral port, run on its
// own thread inside the test process. It replays a recorded conversation
// (tests/fixtures/llm/*.json): for each request it receives, it checks the
// request against the next exchange's expectations and answers with that
// exchange's scripted response (a completion with tool calls, an HTTP error,
// a malformed body, a delay, a hang-up).
//
// Beyond each exchange's own expectations it checks the protocol on every
// request: the conversation only grows (each request repeats the previous
// one's messages plus the reply it got), every tool call in the transcript is
// answered by exactly one tool message before the next assistant turn, and a
// retried request is identical to the one it repeats. Violations are
// collected in failures(); tests assert that list is empty.
//
// Fixture format:
//   {"exchanges": [
//     {"expect": {...}, "response": {...}}, ...]}
// expect (all optional):
//   "authorization": "Bearer k" | null (absent)   "model": "m"
//   "tools": ["read_file", ...] (the set offered)  "temperature": 0.2 | null
//   "roles": ["system", "user", ...]              "message_count": 4
//   "last_message": {"role": "tool", "contains": ["..."]}
//   "tool_results": {"call_1": ["text the tool message contains", ...]}
//   "any_message_contains": ["..."]   "body_not_contains": ["..."]
// response:
//   "status": 200 (default)   "headers": {"Retry-After": "0"}
//   "reply": {"content": "...", "tool_calls": [{"id", "name", "arguments": {...} or "text"}],
//             "finish_reason": "tool_calls"}   -> expanded into a chat.completion body
//   "body": {...} (any JSON, sent as is)   "raw_body": "text"
//   "delay_ms": 5000   "hang_up": true (close the connection without answering)
//   "chunked": true (Transfer-Encoding: chunked instead of Content-Length)
// "${NAME}" in the fixture text is replaced from the variables given to load_script.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace warplens::test {

struct ScriptedExchange {
  nlohmann::json expect = nlohmann::json::object();
  nlohmann::json response = nlohmann::json::object();
};

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  nlohmann::json json;  // null when the body was not JSON
};

// A self-signed certificate and its key (PEM files), made with OpenSSL at
// test time, so no key material is committed and nothing expires.
struct TestCertificate {
  std::string cert_file;
  std::string key_file;
};
// `subject_alt_names` like "IP:127.0.0.1,DNS:localhost".
TestCertificate make_self_signed_certificate(const std::string& directory,
                                             const std::string& subject_alt_names = "IP:127.0.0.1,DNS:localhost");

class ScriptedLlmEndpoint {
 public:
  // Reads a fixture, substituting ${NAME} from `variables`.
  static std::vector<ScriptedExchange> load_script(const std::string& path,
                                                   const std::map<std::string, std::string>& variables = {});

  // Plain HTTP.
  explicit ScriptedLlmEndpoint(std::vector<ScriptedExchange> script);
  // HTTPS with the given certificate.
  ScriptedLlmEndpoint(std::vector<ScriptedExchange> script, TestCertificate tls);
  ~ScriptedLlmEndpoint();
  ScriptedLlmEndpoint(const ScriptedLlmEndpoint&) = delete;
  ScriptedLlmEndpoint& operator=(const ScriptedLlmEndpoint&) = delete;

  unsigned short port() const { return port_; }
  // "http://127.0.0.1:PORT/v1" (or https).
  std::string base_url(const std::string& prefix = "/v1") const;

  std::vector<std::string> failures() const;
  std::vector<ReceivedRequest> requests() const;
  std::size_t unused_exchanges() const;
  // A delayed response was abandoned because the client closed the connection.
  bool client_hung_up_during_delay() const { return client_hung_up_.load(); }
  // TLS handshakes that failed (e.g. the client rejected the certificate).
  int failed_handshakes() const { return failed_handshakes_.load(); }

 private:
  void serve();
  // Takes a boost::asio::ip::tcp::socket (declared as a template to keep Boost out of this header).
  template <class Socket>
  void serve_connection(Socket socket, int fd);
  template <class Stream>
  void handle(Stream& stream, int fd);
  // Checks one request; returns the exchange to answer with (nullptr: none left).
  const ScriptedExchange* check(const ReceivedRequest& request);
  void fail(const std::string& what);

  struct Listener;  // the socket and TLS context (Boost types stay in the .cpp)

  void listen();

  std::vector<ScriptedExchange> script_;
  bool tls_ = false;
  TestCertificate certificate_;
  std::unique_ptr<Listener> listener_;
  unsigned short port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> client_hung_up_{false};
  std::atomic<int> failed_handshakes_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> failures_;
  std::vector<ReceivedRequest> requests_;
  std::size_t next_ = 0;
  nlohmann::json previous_messages_;        // messages of the previous request
  nlohmann::json previous_reply_;           // assistant message we answered it with, or null
  bool previous_was_error_ = false;         // it was answered with an error status (a retry must repeat it)
  std::thread thread_;
};

}  // namespace warplens::test
