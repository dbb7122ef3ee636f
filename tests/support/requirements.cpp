#include "tests/support/requirements.h"

#include <set>

namespace warplens::test {

namespace {

std::map<std::string, RequirementCheck>& registry() {
  static std::map<std::string, RequirementCheck> checks;
  return checks;
}

// doctest keeps the suite name as a `const char*`: intern it for the run.
const char* intern(const std::string& s) {
  static std::set<std::string> names;
  return names.insert(s).first->c_str();
}

}  // namespace

bool register_requirement(const char* name, RequirementCheck check) {
  registry().emplace(name, std::move(check));
  return true;
}

const std::map<std::string, RequirementCheck>& requirements() { return registry(); }

doctest::test_suite needs(std::initializer_list<const char*> names) {
  std::string suite = kNeedsSuitePrefix;
  bool first = true;
  for (const char* n : names) {
    suite += (first ? "" : " + ") + std::string(n);
    first = false;
  }
  return doctest::test_suite(intern(suite));
}

}  // namespace warplens::test
