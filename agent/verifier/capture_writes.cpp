// See capture_writes.h.
#include "agent/verifier/capture_writes.h"

#include <set>

namespace warplens::verifier {

bool written_by_another_launch(const capture::CaptureManifest& manifest, const capture::LaunchRecord& launch,
                               std::size_t allocation) {
  std::set<int> params;
  for (const auto& p : launch.pointers)
    if (p.allocation >= 0 && static_cast<std::size_t>(p.allocation) == allocation) params.insert(p.param);
  for (const auto& other : manifest.launches) {
    if (other.index == launch.index || other.kernel != launch.kernel) continue;
    for (const auto& q : other.pointers)
      if (params.count(q.param) && q.allocation >= 0 &&
          static_cast<std::size_t>(q.allocation) < other.allocations.size() &&
          other.allocations[static_cast<std::size_t>(q.allocation)].modified)
        return true;
  }
  return false;
}

}  // namespace warplens::verifier
