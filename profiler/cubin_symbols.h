// The kernels and module-scope variables a CUDA module image (an ELF cubin)
// defines, read from its symbol table.
//
// Why: a kernel reads more than its parameters. `__constant__` filters set
// with cudaMemcpyToSymbol and `__device__` tables live in the module, not in
// any allocation a parameter points to, so a capture that records only the
// parameters' allocations replays such a kernel on zeroed constants. The
// capture reads this table from the images CUPTI hands it at module load,
// asks the driver for each variable by name (cuModuleGetGlobal) and records
// its contents beside the allocations (docs/capture-format.md).
//
// The image is untrusted input (it comes from the profiled program): every
// offset is checked against the image's size and a malformed image yields
// `error`, never a read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warplens::capture {

struct ModuleVariable {
  std::string name;     // as the module names it (mangled for C++ scopes)
  std::uint64_t bytes = 0;
  std::string section;  // ".nv.constant3", ".nv.global", ".nv.global.init"
  bool constant() const { return section.rfind(".nv.constant", 0) == 0; }
};

struct CubinSymbols {
  std::vector<std::string> functions;       // kernels and device functions (STT_FUNC, defined)
  std::vector<ModuleVariable> variables;    // user __constant__ and __device__ variables
  std::string error;                        // non-empty: not an ELF64 cubin, or malformed
};

// Reads `size` bytes at `image`. An image that is not ELF (PTX text, a
// fatbin wrapper) gives error "not an ELF image".
CubinSymbols read_cubin_symbols(const void* image, std::size_t size);

}  // namespace warplens::capture
