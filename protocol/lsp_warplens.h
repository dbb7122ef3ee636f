// warplens's own protocol extensions (method names start with `warplens/`).
#pragma once

#include <string>

#include "protocol/jsonrpc.h"

namespace warplens::protocol {

// Notification `warplens/status`: what the server is doing and what it found
// about the toolchain, so editors can show a status item.
inline constexpr const char* kStatusNotification = "warplens/status";

struct StatusParams {
  std::string state = "starting";  // "starting" | "parsing" | "ready"
  bool frontend = false;           // this build has the Clang front end
  bool cudaFound = false;
  std::string cudaPath;
  std::string cudaVersion;
  bool degraded = false;           // parsing without CUDA headers (bundled prelude)
  json gpu;                        // null until GPU detection lands

  bool operator==(const StatusParams&) const = default;
};

void to_json(json& j, const StatusParams& v);
void from_json(const json& j, StatusParams& v);

}  // namespace warplens::protocol
