#include "analysis/kernel_model.h"

namespace warplens {

const char* to_string(MemorySpace s) {
  switch (s) {
    case MemorySpace::Global: return "global";
    case MemorySpace::Shared: return "shared";
    case MemorySpace::Local: return "local";
    case MemorySpace::Constant: return "constant";
    case MemorySpace::Generic: return "generic";
  }
  return "generic";
}

const char* to_string(AccessKind k) {
  switch (k) {
    case AccessKind::Load: return "load";
    case AccessKind::Store: return "store";
    case AccessKind::Atomic: return "atomic";
  }
  return "load";
}

const Function* KernelModel::find(const std::string& key) const {
  for (const auto& f : functions)
    if (f.key == key) return &f;
  return nullptr;
}

std::vector<const Function*> KernelModel::kernels() const {
  std::vector<const Function*> out;
  for (const auto& f : functions)
    if (f.kind == FunctionKind::Kernel) out.push_back(&f);
  return out;
}

}  // namespace warplens
