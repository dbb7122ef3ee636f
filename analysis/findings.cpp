#include "analysis/findings.h"

namespace warplens {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Information: return "info";
    case Severity::Hint: return "hint";
  }
  return "warning";
}

void Evidence::set(std::string key, EvidenceValue v) {
  for (auto& [k, val] : fields)
    if (k == key) {
      val = std::move(v);
      return;
    }
  fields.emplace_back(std::move(key), std::move(v));
}

const EvidenceValue* Evidence::get(const std::string& key) const {
  for (const auto& [k, val] : fields)
    if (k == key) return &val;
  return nullptr;
}

}  // namespace warplens
