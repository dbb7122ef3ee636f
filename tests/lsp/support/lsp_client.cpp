#include "support/lsp_client.h"

#include <doctest/doctest.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace warplens::testing {

using Clock = std::chrono::steady_clock;

LspClient::LspClient(ServerProcess& process) : process_(process) {}
LspClient::LspClient(ServerProcess& process, int socket_fd) : process_(process), socket_fd_(socket_fd) {}
LspClient::~LspClient() {
  if (socket_fd_ >= 0) ::close(socket_fd_);
}

json LspClient::capabilities_utf16() {
  return {{"window", {{"workDoneProgress", true}}},
          {"workspace", {{"workspaceEdit", {{"documentChanges", true}}}, {"configuration", false}}},
          {"textDocument",
           {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}},
            {"publishDiagnostics", {{"versionSupport", true}, {"relatedInformation", true}}},
            {"codeAction",
             {{"dataSupport", true},
              {"resolveSupport", {{"properties", {"edit"}}}},
              {"codeActionLiteralSupport", {{"codeActionKind", {{"valueSet", {"quickfix"}}}}}}}}}}};
}

bool LspClient::send_raw(std::string_view bytes) {
  if (socket_fd_ < 0) return process_.write_stdin(bytes, kWait);
  while (!bytes.empty()) {
    ssize_t n = ::write(socket_fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{socket_fd_, POLLOUT, 0};
      ::poll(&p, 1, 50);
    } else {
      return false;
    }
  }
  return true;
}

void LspClient::send(const json& message) {
  if (!send_raw(protocol::frame_json(message)))
    FAIL_CHECK("could not write to the server: " << process_.describe());
}

int LspClient::send_request(const std::string& method, json params) {
  int id = ++next_id_;
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  send(m);
  return id;
}

void LspClient::notify(const std::string& method, json params) {
  json m = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  send(m);
}

bool LspClient::pump(std::chrono::milliseconds wait) {
  std::string bytes;
  if (socket_fd_ >= 0) {
    pollfd p{socket_fd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(wait.count()));
    char buf[65536];
    ssize_t n;
    while ((n = ::read(socket_fd_, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<std::size_t>(n));
    process_.poll_output(0ms);  // keep stderr drained
  } else {
    process_.poll_output(wait);
    bytes = process_.take_stdout();
  }
  std::vector<protocol::FrameEvent> events;
  reader_.feed(bytes, events);
  bool got = false;
  for (const auto& e : events) {
    if (const auto* err = std::get_if<protocol::FramingError>(&e)) {
      FAIL_CHECK("the server wrote something that is not an LSP frame: " << err->message);
      continue;
    }
    json m = json::parse(std::get<protocol::Frame>(e).body, nullptr, false);
    if (m.is_discarded()) {
      FAIL_CHECK("the server sent invalid JSON: " << std::get<protocol::Frame>(e).body.substr(0, 200));
      continue;
    }
    if (m.contains("method") && m.contains("id")) {  // a request from the server: answer it
      server_requests.push_back(m);
      auto a = answers.find(m["method"].get<std::string>());
      json result = a != answers.end() ? a->second(m.value("params", json())) : json();
      send({{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}});
      continue;
    }
    messages_.push_back(std::move(m));
    got = true;
  }
  return got;
}

json LspClient::wait_response(int id, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::size_t scanned = 0;
  while (true) {
    for (; scanned < messages_.size(); ++scanned) {
      const json& m = messages_[scanned];
      if (!m.contains("method") && m.contains("id") && m["id"] == id) {
        taken_.insert(scanned);
        return m;
      }
    }
    if (Clock::now() > deadline) {
      FAIL_CHECK("no response to request " << id << " within " << timeout.count() << " ms; " << process_.describe());
      return json::object();
    }
    if (!process_.running() && process_.stdout_closed() && socket_fd_ < 0) {
      pump(0ms);
      if (scanned == messages_.size()) {
        FAIL_CHECK("waiting for response " << id << ": " << process_.describe());
        return json::object();
      }
    }
    pump(20ms);
  }
}

json LspClient::wait_notification(const std::string& method, std::function<bool(const json&)> pred,
                                  std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (true) {
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      if (taken_.count(i)) continue;
      const json& m = messages_[i];
      if (m.value("method", "") != method || m.contains("id")) continue;
      if (pred && !pred(m.value("params", json()))) continue;
      taken_.insert(i);
      return m;
    }
    if (Clock::now() > deadline) {
      FAIL_CHECK("no " << method << " notification within " << timeout.count() << " ms; " << process_.describe());
      return json::object();
    }
    if (!process_.running() && process_.stdout_closed() && socket_fd_ < 0) {
      FAIL_CHECK("waiting for " << method << ": " << process_.describe());
      return json::object();
    }
    pump(20ms);
  }
}

void LspClient::drain(std::chrono::milliseconds duration) {
  auto deadline = Clock::now() + duration;
  while (Clock::now() < deadline) pump(10ms);
}

json LspClient::initialize(json capabilities, json initialization_options) {
  json params = {{"processId", ::getpid()},
                 {"clientInfo", {{"name", "warplens-e2e"}, {"version", "1"}}},
                 {"rootUri", nullptr},
                 {"capabilities", std::move(capabilities)}};
  if (!initialization_options.is_null()) params["initializationOptions"] = std::move(initialization_options);
  json r = request("initialize", params);
  notify("initialized", json::object());
  return r;
}

int LspClient::shutdown_and_exit() {
  json r = request("shutdown", nullptr);
  CHECK_MESSAGE(r.contains("result"), "shutdown failed: " << r.dump());
  notify("exit", nullptr);
  return process_.wait_exit(kWait);
}

std::vector<json> LspClient::notifications(const std::string& method) const {
  std::vector<json> out;
  for (const auto& m : messages_)
    if (m.value("method", "") == method && !m.contains("id")) out.push_back(m.value("params", json()));
  return out;
}

}  // namespace warplens::testing
