#include "profiler/inject/cubin_store.h"

#include <cupti.h>
#include <cupti_pcsampling.h>  // cuptiGetSassToSourceCorrelation

#include <cstdlib>

namespace warplens::inject {

bool CubinStore::add(std::uint32_t /*module_id*/, const char* data, std::size_t size) {
  if (!data || size == 0) return true;
  std::lock_guard lock(mu_);
  if (bytes_ + size > max_bytes_) {
    capped_ = true;
    return false;
  }
  cubins_.emplace_back(data, size);
  bytes_ += size;
  return true;
}

bool CubinStore::try_cubin(std::size_t index, const std::string& function, std::uint32_t pc,
                           SourceLine* out) {
  const std::string& cubin = cubins_[index];
  CUpti_GetSassToSourceCorrelationParams p = {CUpti_GetSassToSourceCorrelationParamsSize};
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function.c_str();
  p.pcOffset = pc;
  // UNKNOWN is also what CUPTI returns when the function is not in this
  // cubin, so any failure just means "try the next one".
  if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return false;
  std::string file = p.fileName ? p.fileName : "";
  std::string dir = p.dirName ? p.dirName : "";
  if (!file.empty() && file.front() != '/' && !dir.empty())
    file = dir + (dir.back() == '/' ? "" : "/") + file;
  out->file = std::move(file);
  out->line = int(p.lineNumber);
  // The caller owns the strings CUPTI allocated.
  std::free(p.fileName);
  std::free(p.dirName);
  return true;
}

SourceLine CubinStore::resolve(const std::string& function, std::uint32_t pc) {
  std::lock_guard lock(mu_);
  auto key = std::make_pair(function, pc);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  SourceLine result;
  bool found = false;
  auto known = function_cubin_.find(function);
  if (known != function_cubin_.end()) found = try_cubin(known->second, function, pc, &result);
  // Scanning every cubin costs one line-table parse each. A function that
  // failed a few full scans has no line table (no -lineinfo): stop trying.
  int& failed_scans = failed_scans_[function];
  if (!found && known == function_cubin_.end() && failed_scans < kMaxFailedScans) {
    for (std::size_t i = 0; !found && i < cubins_.size(); ++i) {
      if (try_cubin(i, function, pc, &result)) {
        function_cubin_[function] = i;
        found = true;
      }
    }
    if (!found) ++failed_scans;
  }
  cache_[key] = result;
  return result;
}

std::size_t CubinStore::count() const {
  std::lock_guard lock(mu_);
  return cubins_.size();
}

bool CubinStore::capped() const {
  std::lock_guard lock(mu_);
  return capped_;
}

}  // namespace warplens::inject
