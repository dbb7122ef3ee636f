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

const char* to_string(HostEventKind k) {
  switch (k) {
    case HostEventKind::Allocate: return "allocate";
    case HostEventKind::Free: return "free";
    case HostEventKind::Copy: return "copy";
    case HostEventKind::Set: return "set";
    case HostEventKind::Launch: return "launch";
    case HostEventKind::Use: return "use";
    case HostEventKind::Synchronize: return "synchronize";
    case HostEventKind::ScopeEnd: return "scope-end";
  }
  return "use";
}

const char* to_string(AllocationKind k) {
  switch (k) {
    case AllocationKind::Malloc: return "cudaMalloc";
    case AllocationKind::MallocAsync: return "cudaMallocAsync";
    case AllocationKind::MallocManaged: return "cudaMallocManaged";
    case AllocationKind::MallocPitch: return "cudaMallocPitch";
    case AllocationKind::MallocHost: return "cudaMallocHost";
    case AllocationKind::Returned: return "returned";
  }
  return "cudaMalloc";
}

const char* to_string(CopyDirection d) {
  switch (d) {
    case CopyDirection::HostToHost: return "host-to-host";
    case CopyDirection::HostToDevice: return "host-to-device";
    case CopyDirection::DeviceToHost: return "device-to-host";
    case CopyDirection::DeviceToDevice: return "device-to-device";
    case CopyDirection::Default: return "default";
    case CopyDirection::Unknown: return "unknown";
  }
  return "unknown";
}

const char* to_string(BufferUse u) {
  switch (u) {
    case BufferUse::HostRead: return "host-read";
    case BufferUse::HostWrite: return "host-write";
    case BufferUse::Passed: return "passed";
    case BufferUse::AddressTaken: return "address-taken";
    case BufferUse::CopiedTo: return "copied-to";
    case BufferUse::Reassigned: return "reassigned";
    case BufferUse::Advanced: return "advanced";
    case BufferUse::Stored: return "stored";
    case BufferUse::Returned: return "returned";
    case BufferUse::Other: return "other";
  }
  return "other";
}

const Function* KernelModel::find(const std::string& key) const {
  for (const auto& f : functions)
    if (f.key == key) return &f;
  return nullptr;
}

const Function* KernelModel::find_callee(const std::string& key) const {
  if (const Function* f = find(key)) return f;
  for (const auto& f : included_functions)
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
