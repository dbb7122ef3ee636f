// warplens/status: a notification editors show as a status item. Sent when
// the state changes: "starting" (initialized, toolchain not yet known),
// "parsing" (analyses pending or running), "ready" (idle), with what the
// last analysis found about the CUDA toolchain, and the GPU: probed once at
// startup on a thread of its own (nvidia-smi or cuInit can take a second),
// null until that answers, then {available, name, arch, devices, reason}.
#include <thread>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "protocol/lsp_warplens.h"
#include "server/features.h"

namespace warplens::server {

namespace {

struct StatusState {
  protocol::StatusParams current;
  std::optional<protocol::StatusParams> sent;
  bool initialized = false;
  std::jthread gpu_probe;  // joined (after a stop request) with the server
};

json gpu_json(const profile::GpuStatus& gpu) {
  if (!gpu.available || gpu.devices.empty())
    return json{{"available", false}, {"name", nullptr}, {"reason", gpu.reason}, {"devices", json::array()}};
  json devices = json::array();
  for (const auto& d : gpu.devices) devices.push_back({{"index", d.index}, {"name", d.name}, {"arch", d.arch()}});
  const auto& first = gpu.devices.front();
  return json{{"available", true}, {"name", first.name}, {"arch", first.arch()}, {"devices", devices}};
}

void send_if_changed(Client& client, StatusState& s) {
  if (!s.initialized || (s.sent && *s.sent == s.current)) return;
  s.sent = s.current;
  client.notify(protocol::kStatusNotification, s.current);
}

}  // namespace

void register_status(Events& events, const Analyses& analyses, Client& client, boost::asio::io_context& io,
                     workflows::GpuProbe gpu_probe) {
  auto state = std::make_shared<StatusState>();
  state->current.frontend = frontend_available();

  events.initialized.connect([&analyses, &client, state] {
    state->initialized = true;
    state->current.state = analyses.busy() ? "parsing" : "starting";
    send_if_changed(client, *state);
  });

  if (gpu_probe) {
    std::weak_ptr<StatusState> weak = state;
    state->gpu_probe = std::jthread([&io, &client, weak, probe = std::move(gpu_probe)](std::stop_token stop) {
      profile::GpuStatus gpu = probe(stop);
      if (stop.stop_requested()) return;
      spdlog::info("GPU: {}", gpu.available && !gpu.devices.empty()
                                  ? gpu.devices.front().name + " (" + gpu.devices.front().arch() + ")"
                                  : "none (" + gpu.reason + ")");
      boost::asio::post(io, [&client, weak, gpu = gpu_json(gpu)] {
        auto s = weak.lock();
        if (!s) return;
        s->current.gpu = gpu;
        send_if_changed(client, *s);
      });
    });
  }

  events.analysis_published.connect([state](const RecordPtr& record) {
    const auto& tc = record->result.toolchain;
    state->current.cudaFound = tc.cuda_found;
    state->current.cudaPath = tc.cuda_path;
    state->current.cudaVersion = tc.cuda_version;
    state->current.degraded = tc.degraded;
  });

  events.analysis_activity.connect([&client, state](std::size_t busy) {
    state->current.state = busy ? "parsing" : "ready";
    send_if_changed(client, *state);
  });
}

}  // namespace warplens::server
