// Which module-scope variables (`__constant__`, `__device__`) the module of a
// kernel defines, learnt from the images CUPTI hands the injection library as
// modules load (profiler/cubin_symbols.h), for the launch capture.
//
// Only modules that define user variables are kept (their kernel names and
// variables): a program that loads thousands of library kernels costs one
// symbol-table scan per module and nothing more. A kernel's name can appear
// in several modules (a template instantiated in two translation units), so
// the variables of every module naming it are returned; the capture then
// asks the launch's own module for each by name and skips the ones it lacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "profiler/cubin_symbols.h"

namespace warplens::inject {

class ModuleVariableIndex {
 public:
  void add(const void* image, std::size_t size);
  // `seen`: whether any module image was read at all (false: the capture
  // cannot say whether the kernel's module has variables).
  std::vector<capture::ModuleVariable> for_kernel(const std::string& symbol, bool* seen) const;
  std::size_t unreadable() const;

 private:
  struct Module {
    std::set<std::string> functions;
    std::vector<capture::ModuleVariable> variables;
  };
  mutable std::mutex mu_;
  std::vector<Module> modules_;
  std::size_t images_ = 0;
  std::size_t unreadable_ = 0;
};

}  // namespace warplens::inject
