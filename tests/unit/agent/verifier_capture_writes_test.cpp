// A buffer a launch rewrites with the values it already held is still one
// the kernel writes (agent/verifier/capture_writes.h).
#include <doctest/doctest.h>

#include "agent/verifier/capture_writes.h"

namespace warplens::verifier {
namespace {

capture::LaunchRecord launch(int index, const std::string& kernel, std::vector<bool> modified) {
  capture::LaunchRecord r;
  r.index = index;
  r.kernel = kernel;
  for (std::size_t a = 0; a < modified.size(); ++a) {
    capture::AllocationRecord rec;
    rec.bytes = 64;
    rec.modified = modified[a];
    r.allocations.push_back(rec);
    capture::PointerSlot p;
    p.param = static_cast<int>(a);
    p.allocation = static_cast<int>(a);
    r.pointers.push_back(p);
  }
  return r;
}

TEST_CASE("an output the second launch leaves unchanged is written by the first") {
  capture::CaptureManifest m;
  m.launches.push_back(launch(0, "_Z9layernormPfPKf", {true, false}));
  m.launches.push_back(launch(1, "_Z9layernormPfPKf", {false, false}));
  CHECK(written_by_another_launch(m, m.launches[1], 0));   // out: launch 0 wrote it
  CHECK_FALSE(written_by_another_launch(m, m.launches[1], 1));  // inp: nobody wrote it
  CHECK_FALSE(written_by_another_launch(m, m.launches[0], 1));
}

TEST_CASE("another kernel's writes through the same parameter position do not count") {
  capture::CaptureManifest m;
  m.launches.push_back(launch(0, "_Z5otherPf", {true}));
  m.launches.push_back(launch(1, "_Z9layernormPfPKf", {false}));
  CHECK_FALSE(written_by_another_launch(m, m.launches[1], 0));
}

TEST_CASE("the parameter, not the allocation index, is followed across launches") {
  capture::CaptureManifest m;
  capture::LaunchRecord first = launch(0, "k", {false, true});  // param 1 -> allocation 1, written
  capture::LaunchRecord second = launch(1, "k", {false, false});
  // In the second launch param 1 points into allocation 0 and param 0 into 1.
  second.pointers[0].param = 1;
  second.pointers[1].param = 0;
  m.launches = {first, second};
  CHECK(written_by_another_launch(m, m.launches[1], 0));
  CHECK_FALSE(written_by_another_launch(m, m.launches[1], 1));
}

}  // namespace
}  // namespace warplens::verifier
