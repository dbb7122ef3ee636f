// See module_variables.h.
#include "agent/verifier/module_variables.h"

#include <set>

namespace warplens::verifier {

std::string module_variable_refusal(const std::vector<capture::LaunchRecord>& records) {
  for (const auto& rec : records)
    for (const auto& g : rec.globals)
      if (g.modified)
        return "captured launch " + std::to_string(rec.index) + " (" + rec.kernel + ") writes the module variable `" +
               g.name + "` (" + std::to_string(g.bytes) +
               " bytes); warplens compares a candidate's allocations, not module variables, so it cannot verify "
               "candidates of this kernel on this capture (pass the buffer as a parameter instead)";
  return "";
}

bool module_variables_recorded(const std::vector<capture::LaunchRecord>& records) {
  for (const auto& rec : records)
    if (!rec.globals_recorded) return false;
  return true;
}

std::string module_variable_note(const std::vector<capture::LaunchRecord>& records) {
  std::set<std::string> names;
  std::uint64_t bytes = 0;
  for (const auto& rec : records)
    for (const auto& g : rec.globals)
      if (names.insert(g.name).second) bytes += g.bytes;
  if (names.empty()) return "";
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return "module variables restored from the capture before every run (" + std::to_string(bytes) + " bytes): " + list;
}

}  // namespace warplens::verifier
