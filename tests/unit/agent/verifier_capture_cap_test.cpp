// The capture's automatic byte cap: half the free disk, 1..16 GiB.
#include <doctest/doctest.h>

#include <filesystem>

#include "agent/verifier/capture_program.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens;
namespace fs = std::filesystem;

TEST_CASE("capture cap: half the free space of the capture's file system, between 1 and 16 GiB") {
  verifier::test::TempDir dir;
  const std::uint64_t available = fs::space(dir.path()).available;
  const std::uint64_t cap = verifier::automatic_capture_cap(dir.path());
  const std::uint64_t GiB = 1ull << 30;
  // Other processes write to the disk meanwhile: compare within 256 MiB.
  const std::uint64_t slack = 256ull << 20;
  auto near = [&](std::uint64_t a, std::uint64_t b) { return (a > b ? a - b : b - a) <= slack; };
  CHECK(cap <= 16 * GiB);
  if (available >= 2 * GiB + slack) CHECK(cap >= GiB);
  if (available < 32 * GiB - slack) CHECK(near(cap, std::max(available / 2, std::min(GiB, available))));
  else CHECK(near(cap, 16 * GiB));
  // A directory not made yet is judged by the nearest one that exists.
  CHECK(near(verifier::automatic_capture_cap(dir.path() / "not" / "yet"), cap));
}
