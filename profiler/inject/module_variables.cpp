#include "profiler/inject/module_variables.h"

namespace warplens::inject {

void ModuleVariableIndex::add(const void* image, std::size_t size) {
  capture::CubinSymbols symbols = capture::read_cubin_symbols(image, size);
  std::lock_guard lock(mu_);
  ++images_;
  if (!symbols.error.empty()) {
    ++unreadable_;
    return;
  }
  if (symbols.variables.empty()) return;
  Module m;
  m.functions.insert(symbols.functions.begin(), symbols.functions.end());
  m.variables = std::move(symbols.variables);
  modules_.push_back(std::move(m));
}

std::vector<capture::ModuleVariable> ModuleVariableIndex::for_kernel(const std::string& symbol, bool* seen) const {
  std::lock_guard lock(mu_);
  if (seen) *seen = images_ > unreadable_;
  std::vector<capture::ModuleVariable> out;
  std::set<std::string> names;
  for (const Module& m : modules_) {
    if (!m.functions.count(symbol)) continue;
    for (const auto& v : m.variables)
      if (names.insert(v.name).second) out.push_back(v);
  }
  return out;
}

std::size_t ModuleVariableIndex::unreadable() const {
  std::lock_guard lock(mu_);
  return unreadable_;
}

}  // namespace warplens::inject
