// The main of every doctest executable (warplens_test() in
// tests/CMakeLists.txt): doctest's own, plus the requirements of
// tests/support/requirements.h. A case whose requirement is missing is
// excluded before the run and reported as skipped (doctest's summary, the
// skip report for scripts/test.sh, exit 77 when nothing ran), never as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/support/requirements.h"

namespace {

namespace fs = std::filesystem;
using warplens::test::Availability;

// Cases doctest ran (it counts the excluded ones as skipped).
unsigned g_cases_run = 0;

struct RunCounter : doctest::IReporter {
  explicit RunCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override { g_cases_run = s.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
DOCTEST_REGISTER_LISTENER("warplens-run-counter", 1, RunCounter);

std::vector<std::string> split_requirements(const std::string& suite) {
  std::vector<std::string> out;
  std::string rest = suite.substr(std::string(warplens::test::kNeedsSuitePrefix).size());
  for (std::size_t at; (at = rest.find(" + ")) != std::string::npos; rest = rest.substr(at + 3))
    out.push_back(rest.substr(0, at));
  out.push_back(rest);
  return out;
}

struct Skip {
  std::string test_case;
  std::string reason;
};

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);

  // Every suite made by needs(), and why it cannot run here ("" when it can).
  std::map<std::string, Availability> asked;  // by requirement name
  std::map<std::string, std::string> suites;  // suite -> reason it is skipped
  bool broken = false;
  for (const auto& tc : doctest::detail::getRegisteredTests()) {
    const std::string suite = tc.m_test_suite ? tc.m_test_suite : "";
    if (suite.rfind(warplens::test::kNeedsSuitePrefix, 0) != 0 || suites.count(suite)) continue;
    std::string why;
    for (const auto& name : split_requirements(suite)) {
      auto it = asked.find(name);
      if (it == asked.end()) {
        auto check = warplens::test::requirements().find(name);
        Availability a = check == warplens::test::requirements().end()
                             ? warplens::test::broken("no check is registered for the requirement `" + name +
                                                      "` (WARPLENS_REQUIREMENT, tests/support/requirements.h)")
                             : check->second();
        it = asked.emplace(name, a).first;
        if (a.state == Availability::State::Broken) {
          std::fprintf(stderr, "requirement `%s` is broken: %s\n", name.c_str(), a.why.c_str());
          broken = true;
        }
      }
      if (it->second.state != Availability::State::Met)
        why += (why.empty() ? "" : "; ") + ("needs " + name + ": " + it->second.why);
    }
    suites[suite] = why;
  }
  if (broken) return 1;

  std::vector<Skip> skipped;
  for (const auto& [suite, why] : suites)
    if (!why.empty()) context.addFilter("test-suite-exclude", suite.c_str());
  for (const auto& tc : doctest::detail::getRegisteredTests())
    if (tc.m_test_suite)
      if (auto it = suites.find(tc.m_test_suite); it != suites.end() && !it->second.empty())
        skipped.push_back({tc.m_name, it->second});

  const int rc = context.run();
  if (context.shouldExit()) return rc;  // --help, --list-test-cases, ...

  const std::string exe = fs::path(argc > 0 ? argv[0] : "tests").filename().string();
  if (const char* dir = std::getenv("WARPLENS_SKIP_REPORT_DIR"); dir && *dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path report = fs::path(dir) / (exe + ".skipped");
    if (skipped.empty()) {
      fs::remove(report, ec);
    } else {
      std::ofstream out(report);
      for (const auto& s : skipped) out << s.test_case << '\t' << s.reason << '\n';
    }
  }
  for (const auto& s : skipped) std::printf("skipped: %s (%s)\n", s.test_case.c_str(), s.reason.c_str());
  if (rc == 0 && g_cases_run == 0 && !skipped.empty()) return 77;  // ctest: SKIP_RETURN_CODE
  return rc;
}
