#include "protocol/lsp_warplens.h"

namespace warplens::protocol {

void to_json(json& j, const StatusParams& v) {
  j = json{{"state", v.state},       {"frontend", v.frontend},       {"cudaFound", v.cudaFound},
           {"cudaPath", v.cudaPath}, {"cudaVersion", v.cudaVersion}, {"degraded", v.degraded},
           {"gpu", v.gpu}};
}

void from_json(const json& j, StatusParams& v) {
  j.at("state").get_to(v.state);
  v.frontend = j.value("frontend", false);
  v.cudaFound = j.value("cudaFound", false);
  v.cudaPath = j.value("cudaPath", std::string());
  v.cudaVersion = j.value("cudaVersion", std::string());
  v.degraded = j.value("degraded", false);
  v.gpu = j.value("gpu", json());
}

}  // namespace warplens::protocol
