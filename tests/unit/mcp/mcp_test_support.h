// What the MCP unit tests share: a Session whose Writer records every
// message, waiting for the ones a call sends from its own thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/session.h"

namespace warplens::mcp::test {

using json = nlohmann::json;

class Recorder {
 public:
  Session::Writer writer() {
    return [this](const json& m) {
      std::lock_guard lock(mutex_);
      messages_.push_back(m);
      cv_.notify_all();
    };
  }
  // The response to request `id`, waiting up to `timeout`; null when none came.
  json response(const json& id, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    json found;
    cv_.wait_for(lock, timeout, [&] {
      for (const auto& m : messages_)
        if (m.contains("id") && m["id"] == id && (m.contains("result") || m.contains("error"))) {
          found = m;
          return true;
        }
      return false;
    });
    return found;
  }
  std::vector<json> notifications(const std::string& method) {
    std::lock_guard lock(mutex_);
    std::vector<json> out;
    for (const auto& m : messages_)
      if (m.value("method", std::string()) == method) out.push_back(m);
    return out;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<json> messages_;
};

inline std::string request(const json& id, const std::string& method, const json& params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}
inline std::string notification(const std::string& method, const json& params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump();
}
inline void initialize(Session& s, Recorder& r) {
  s.handle(request(0, "initialize",
                   {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                    {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
  r.response(0);
  s.handle(notification("notifications/initialized"));
}

// A fresh directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("warplens-mcp-test-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
    path_ = std::filesystem::canonical(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace warplens::mcp::test
