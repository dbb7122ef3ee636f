#include "mcp/lifecycle.h"

#include <algorithm>

namespace warplens::mcp {

std::string negotiate_protocol_version(const std::string& requested) {
  const auto& v = supported_protocol_versions();
  return std::find(v.begin(), v.end(), requested) != v.end() ? requested : v.front();
}

nlohmann::json initialize_result(const ServerInfo& info, const std::string& protocol_version) {
  nlohmann::json j = {
      {"protocolVersion", protocol_version},
      // Tools only; the list never changes during a session.
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", {{"name", info.name}, {"title", info.title}, {"version", info.version}}},
  };
  if (!info.instructions.empty()) j["instructions"] = info.instructions;
  return j;
}

}  // namespace warplens::mcp
