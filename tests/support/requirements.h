// Test cases that need something this machine may lack (nvcc, the CUDA
// toolkit's headers, the Clang rewrite engine, the LLM policy, a GPU) say
// so, and are reported as skipped, never as passed, when it is missing:
//
//   TEST_CASE("nvcc: cache hits" * needs("nvcc")) { ... }
//   TEST_CASE("end to end" * needs("nvcc", "occupancy-calculator")) { ... }
//
// needs() puts the case into the doctest test suite "needs: nvcc" (or
// "needs: nvcc + occupancy-calculator"). Before running, the test main
// (test_main.cpp) asks the check registered under each name, excludes the
// suites whose requirement is missing, and
//   - writes one line per skipped case ("case<TAB>reason") to
//     $WARPLENS_SKIP_REPORT_DIR/<executable>.skipped, which scripts/test.sh
//     prints at the end of the run (doctest's own summary counts them as
//     skipped too);
//   - exits 77 (ctest: skipped) when no case ran at all.
// A name without a registered check fails the run: a typo must not skip.
//
// Checks are registered at namespace scope in a file the executable links,
// next to the library calls they need:
//
//   WARPLENS_REQUIREMENT("nvcc", [] { return have_nvcc() ? met() : missing("nvcc not found"); });
//
// A check may also say the thing is broken rather than absent (CUDA was
// found at build time but nvcc does not run): the run then fails.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <string>

namespace warplens::test {

struct Availability {
  enum class State { Met, Missing, Broken } state = State::Met;
  std::string why;  // for Missing and Broken
};
inline Availability met() { return {}; }
inline Availability missing(std::string why) { return {Availability::State::Missing, std::move(why)}; }
inline Availability broken(std::string why) { return {Availability::State::Broken, std::move(why)}; }

using RequirementCheck = std::function<Availability()>;

// Registers `check` under `name` (the first registration of a name wins).
bool register_requirement(const char* name, RequirementCheck check);
// The registered checks, by name.
const std::map<std::string, RequirementCheck>& requirements();

// The doctest decorator: the case runs only when every named requirement is met.
doctest::test_suite needs(std::initializer_list<const char*> names);
template <class... Names>
doctest::test_suite needs(Names... names) {
  return needs({names...});
}

// The prefix of the suites needs() makes; test_main.cpp splits the rest on " + ".
inline constexpr const char* kNeedsSuitePrefix = "needs: ";

}  // namespace warplens::test

#define WARPLENS_REQUIREMENT_CAT2(a, b) a##b
#define WARPLENS_REQUIREMENT_CAT(a, b) WARPLENS_REQUIREMENT_CAT2(a, b)
#define WARPLENS_REQUIREMENT(name, ...)                                                            \
  static const bool WARPLENS_REQUIREMENT_CAT(warplens_requirement_, __COUNTER__) =                 \
      ::warplens::test::register_requirement(name, __VA_ARGS__)
