// `warplens-replay timer-check`: does the timer on this machine count work
// that lands outside the timed stream? Times a spinning kernel launched on
// the timer's own stream, then the same kernel launched on a second
// non-blocking stream, and writes both sets of samples. The GPU test feeds
// them to the verdict's timing rule (summarize_timing), which must notice.
#include <nlohmann/json.hpp>

#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_timer.h"

namespace warplens::replay {

std::string timer_check(const std::string& cubin, long long cycles, int runs) {
  Context ctx;
  const auto device = ctx.summary();
  Module module(cubin);
  CUfunction spin = module.find("spin", "spin", nullptr);
  Timer timer(device.l2_bytes, 0);
  Stream other;
  void* params[] = {&cycles};
  auto launch_on = [&](CUstream s) {
    check(cuLaunchKernel(spin, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr), "cuLaunchKernel(spin)");
  };
  nlohmann::json out = {{"device", device.name}, {"cycles", cycles}};
  for (const char* which : {"own_stream", "other_stream"}) {
    bool own = std::string(which) == "own_stream";
    std::vector<double> event_us, device_us;
    for (int i = 0; i < runs + 2; ++i) {
      TimedRun t = timer.time([&](CUstream s) { launch_on(own ? s : other.get()); });
      if (i < 2) continue;  // warm-up
      event_us.push_back(t.event_us);
      device_us.push_back(t.device_us);
    }
    out[which] = {{"event_us", event_us}, {"device_us", device_us}};
  }
  out["ok"] = true;
  return out.dump(1);
}

}  // namespace warplens::replay
