// A small LSP client for end-to-end tests against the real binary: frames
// and sends messages, reads and parses the server's frames, answers the
// server's own requests, and waits for replies and notifications with
// deadlines. Any byte on the channel that is not an LSP frame fails the
// test (stdout must carry nothing else).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/framing.h"
#include "support/server_process.h"

namespace warplens::testing {

using nlohmann::json;
using namespace std::chrono_literals;

// Generous: CI machines are shared, and a Clang parse under load takes seconds.
inline constexpr std::chrono::milliseconds kWait = 60s;

class LspClient {
 public:
  // Talks over the process's stdin/stdout.
  explicit LspClient(ServerProcess& process);
  // Talks over a connected TCP socket (the process gives stderr and exit status).
  LspClient(ServerProcess& process, int socket_fd);
  ~LspClient();

  bool send_raw(std::string_view bytes);
  void send(const json& message);
  int send_request(const std::string& method, json params);
  void notify(const std::string& method, json params);
  json wait_response(int id, std::chrono::milliseconds timeout = kWait);
  json request(const std::string& method, json params, std::chrono::milliseconds timeout = kWait) {
    return wait_response(send_request(method, std::move(params)), timeout);
  }
  // The next notification `method` not taken before that satisfies `pred`.
  json wait_notification(const std::string& method, std::function<bool(const json&)> pred = nullptr,
                         std::chrono::milliseconds timeout = kWait);
  // Reads for `duration`, to see what (else) arrives.
  void drain(std::chrono::milliseconds duration);

  json initialize(json capabilities, json initialization_options = nullptr);
  // shutdown (expects a null result), exit; returns the exit status.
  int shutdown_and_exit();

  std::vector<json> notifications(const std::string& method) const;
  std::vector<json> received() const { return messages_; }
  std::vector<json> server_requests;
  std::map<std::string, std::function<json(const json&)>> answers;

  static json capabilities_utf16();  // typical client, UTF-16 only

 private:
  bool pump(std::chrono::milliseconds wait);  // true if a message arrived
  ServerProcess& process_;
  int socket_fd_ = -1;
  protocol::FrameReader reader_{std::size_t{1} << 30};
  std::vector<json> messages_;
  std::set<std::size_t> taken_;
  int next_id_ = 0;
};

inline json did_open(const std::string& uri, int version, const std::string& text) {
  return {{"textDocument", {{"uri", uri}, {"languageId", "cuda"}, {"version", version}, {"text", text}}}};
}
inline json lsp_position(int line, int character) { return {{"line", line}, {"character", character}}; }
inline json lsp_range(int l0, int c0, int l1, int c1) {
  return {{"start", lsp_position(l0, c0)}, {"end", lsp_position(l1, c1)}};
}

}  // namespace warplens::testing
