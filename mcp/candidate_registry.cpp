#include "mcp/candidate_registry.h"

#include <cstdio>

#include "agent/text_diff.h"

namespace warplens::mcp {

std::string hash_text(const std::string& text) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(agent::text_hash(text)));
  return buf;
}

CandidateRecord CandidateRegistry::add(CandidateRecord record) {
  std::lock_guard lock(mutex_);
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "c" + to_string().
  record.id = "c";
  record.id += std::to_string(next_++);
  records_[record.id] = record;
  return record;
}

std::optional<CandidateRecord> CandidateRegistry::find(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(id);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

}  // namespace warplens::mcp
