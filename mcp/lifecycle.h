// MCP's lifecycle (2025-06-18, "Lifecycle"): the initialize request and its
// answer. The client names the protocol version it wants; the server
// answers with that version when it speaks it, else with the newest one it
// speaks, and the client decides whether to go on.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warplens::mcp {

// The versions this server speaks, newest first. Only 2025-06-18 is
// implemented and tested (structured tool output, outputSchema, titles);
// older clients are answered with it and may disconnect.
inline const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> v = {"2025-06-18"};
  return v;
}

std::string negotiate_protocol_version(const std::string& requested);

struct ServerInfo {
  std::string name = "warplens";
  std::string title = "warplens: CUDA analysis, profiling and verified rewrites";
  std::string version;       // "0.1.0"
  std::string instructions;  // how a model should use the tools (initialize's `instructions`)
};

// The initialize result for `protocol_version` (already negotiated).
nlohmann::json initialize_result(const ServerInfo& info, const std::string& protocol_version);

}  // namespace warplens::mcp
