// Itanium C++ demangling for kernel names (CUPTI reports mangled names).
#pragma once

#include <string>

namespace warplens::profile {

// "_Z5naivePfS_" -> "naive(float*, float*)"; a name that is not mangled
// (extern "C" kernels) comes back unchanged.
std::string demangle(const std::string& mangled);

// The unqualified function name without parameters or template arguments:
// "ns::transpose<32>(float*, float const*)" -> "transpose". Used to match a
// measured kernel to the function of the same name in a kernel model.
std::string base_name(const std::string& demangled);

}  // namespace warplens::profile
