// warplens/status's `gpu`: probed once at startup on its own thread, null
// until it answers, then the device or why there is none.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "server_harness.h"

using namespace warplens;
using namespace warplens::testing;

TEST_CASE("warplens/status names the GPU the probe found") {
  server::ServerOptions options = fast_options();
  options.gpu_probe = [](std::stop_token) {
    profile::GpuStatus s;
    s.available = true;
    s.devices.push_back({0, "NVIDIA H200", 9, 0});
    s.devices.push_back({1, "NVIDIA H200", 9, 0});
    return s;
  };
  ServerHarness h(options);
  json status = h.wait_notification("warplens/status", [](const json& p) { return p["gpu"].is_object(); });
  const json& gpu = status["params"]["gpu"];
  CHECK(gpu["available"] == true);
  CHECK(gpu["name"] == "NVIDIA H200");
  CHECK(gpu["arch"] == "sm_90");
  REQUIRE(gpu["devices"].size() == 2);
  CHECK(gpu["devices"][1] == json{{"index", 1}, {"name", "NVIDIA H200"}, {"arch", "sm_90"}});
}

TEST_CASE("warplens/status says why there is no GPU; the probe runs once, off the main thread") {
  static std::atomic<int> probes{0};
  static std::atomic<bool> on_main{false};
  const auto main_thread = std::this_thread::get_id();
  server::ServerOptions options = fast_options();
  options.gpu_probe = [main_thread](std::stop_token) {
    ++probes;
    on_main = std::this_thread::get_id() == main_thread;
    profile::GpuStatus s;
    s.reason = "no NVIDIA GPU found";
    return s;
  };
  ServerHarness h(options);
  json status = h.wait_notification("warplens/status", [](const json& p) { return p["gpu"].is_object(); });
  CHECK(status["params"]["gpu"] ==
        json{{"available", false}, {"name", nullptr}, {"reason", "no NVIDIA GPU found"}, {"devices", json::array()}});
  h.notify("textDocument/didOpen", did_open("file:///src/a.cu", 1, "__global__ void k() {}\n"));
  h.wait_notification("textDocument/publishDiagnostics");
  CHECK(probes == 1);
  CHECK_FALSE(on_main);
}
