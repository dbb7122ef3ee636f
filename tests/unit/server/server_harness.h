// An in-process language server for tests: a fake engine, an in-memory
// outbox, and a client side that sends requests, waits for replies and
// notifications (with timeouts), and answers the server's own requests.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <set>

#include "fake_engine.h"
#include "protocol/framing.h"
#include "server/language_server.h"

namespace warplens::testing {

using nlohmann::json;

class MemoryOutbox : public server::Outbox {
 public:
  void send(const json& message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(message);
  }
  std::vector<json> snapshot() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<json> messages_;
};

inline json default_client_capabilities() {
  return json{{"window", {{"workDoneProgress", true}}},
              {"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}},
              {"textDocument",
               {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}},
                {"publishDiagnostics", {{"versionSupport", true}, {"relatedInformation", true}}},
                {"codeAction",
                 {{"dataSupport", true},
                  {"resolveSupport", {{"properties", {"edit"}}}},
                  {"codeActionLiteralSupport", {{"codeActionKind", {{"valueSet", {"quickfix"}}}}}}}}}}};
}

// Options for tests: no debounce, so every edit is analysed at once.
inline server::ServerOptions fast_options() {
  server::ServerOptions o;
  o.debounce = std::chrono::milliseconds(0);
  return o;
}

class ServerHarness {
 public:
  explicit ServerHarness(server::ServerOptions options = fast_options(), bool initialize_now = true,
                         json capabilities = default_client_capabilities(), json initialization_options = nullptr) {
    server_ = std::make_unique<server::LanguageServer>(
        io, outbox,
        [this](const SourceFile& f, const AnalysisOptions& o, std::stop_token s) { return engine(f, o, s); },
        options);
    server_->on_exit([this](int code) { exit_code = code; });
    if (initialize_now) initialize(std::move(capabilities), std::move(initialization_options));
  }
  ~ServerHarness() {
    engine.release();
    server_.reset();
  }

  json initialize_result;  // the last initialize's result (capabilities, serverInfo)

  json initialize(json capabilities = default_client_capabilities(), json initialization_options = nullptr) {
    json params = {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", capabilities}};
    if (!initialization_options.is_null()) params["initializationOptions"] = initialization_options;
    json r = request("initialize", params);
    notify("initialized", json::object());
    initialize_result = r.value("result", json());
    return r;
  }

  void send_raw(std::string_view body) { server_->receive(body); }
  void send(const json& message) { server_->receive(message.dump()); }

  int send_request(const std::string& method, json params) {
    int id = ++next_id_;
    send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  void notify(const std::string& method, json params) {
    send(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  // The response to request `id` (the whole message).
  json wait_response(int id, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    json found;
    run_until(io, [&] { return pump([&](const json& m) {
                  if (!m.contains("method") && m.contains("id") && m["id"] == id) { found = m; return true; }
                  return false; }); },
              ("response to request " + std::to_string(id)).c_str(), timeout);
    return found;
  }
  json request(const std::string& method, json params) { return wait_response(send_request(method, std::move(params))); }

  // The next notification `method` (after those already taken) that matches `pred`.
  json wait_notification(const std::string& method, std::function<bool(const json&)> pred = nullptr,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    json found;
    run_until(io, [&] { return pump([&](const json& m) {
                  if (m.value("method", "") != method || m.contains("id")) return false;
                  if (pred && !pred(m["params"])) return false;
                  found = m;
                  return true; }); },
              ("notification " + method).c_str(), timeout);
    return found;
  }

  // Every message the server sent so far.
  std::vector<json> sent() const { return outbox.snapshot(); }
  std::vector<json> notifications(const std::string& method) const {
    std::vector<json> out;
    for (const auto& m : outbox.snapshot())
      if (m.value("method", "") == method && !m.contains("id")) out.push_back(m["params"]);
    return out;
  }
  void idle(std::chrono::milliseconds d = std::chrono::milliseconds(30)) {
    run_for(io, d);
    pump([](const json&) { return false; });
  }

  // Answers for the server's requests; the default answers null.
  std::map<std::string, std::function<json(const json& params)>> answers;
  std::vector<json> server_requests;

  boost::asio::io_context io;
  FakeEngine engine;
  MemoryOutbox outbox;
  std::optional<int> exit_code;
  server::LanguageServer& server() { return *server_; }

 private:
  // Looks at messages not seen yet: answers server requests, and returns
  // true (consuming it) at the first one `take` accepts.
  bool pump(const std::function<bool(const json&)>& take) {
    auto all = outbox.snapshot();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (consumed_.count(i)) continue;
      const json& m = all[i];
      if (m.contains("method") && m.contains("id")) {
        consumed_.insert(i);
        server_requests.push_back(m);
        auto a = answers.find(m["method"].get<std::string>());
        json result = a != answers.end() ? a->second(m.value("params", json())) : json();
        send(json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}});
        continue;
      }
      if (take(m)) {
        consumed_.insert(i);
        return true;
      }
    }
    return false;
  }

  std::unique_ptr<server::LanguageServer> server_;
  std::set<std::size_t> consumed_;
  int next_id_ = 0;
};

inline json text_document(const std::string& uri) { return json{{"uri", uri}}; }
inline json position(int line, int character) { return json{{"line", line}, {"character", character}}; }
inline json range(int l0, int c0, int l1, int c1) {
  return json{{"start", position(l0, c0)}, {"end", position(l1, c1)}};
}
inline json did_open(const std::string& uri, int version, const std::string& text) {
  return json{{"textDocument", {{"uri", uri}, {"languageId", "cuda"}, {"version", version}, {"text", text}}}};
}

}  // namespace warplens::testing
