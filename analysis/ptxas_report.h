// Parsing what nvcc, ptxas and nvlink print: per-function resource usage
// (`-Xptxas -v` / `--resource-usage`) and the toolchain's own diagnostics.
//
// Formats handled (fixtures under tests/fixtures/ptxas/ cite their sources):
// - ptxas, CUDA 13:
//     ptxas info    : Compiling entry function '_Z9transposePKfPfi' for 'sm_90'
//     ptxas info    : Function properties for _Z9transposePKfPfi
//         0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//     ptxas info    : Used 14 registers, used 1 barriers, 4224 bytes smem
//   Every field after the register count is optional and printed only when
//   non-zero or relevant (sm_90+ print no cmem; sm_75-89 print `cmem[0]`).
// - ptxas, CUDA 10-12: the same blocks without `used N barriers`, with
//   `N bytes cmem[K]`, `N textures`, ...; Windows/MSBuild lines prefixed
//   with `1>`; pip/CMake logs indented; names sometimes already demangled.
// - Non-entry (__noinline__) functions: a "Function properties" block with no
//   "Compiling entry function" line and no "Used" line.
// - nvlink (`-rdc=true`, `nvcc --resource-usage -dlink`):
//     nvlink info    : Function properties for '_Z9transposePKfPfi':
//     nvlink info    : used 14 registers, used 1 barriers, 0 stack, 5248 bytes smem, 548 bytes cmem[0], 0 bytes lmem
//   whose smem includes the driver's per-block reservation (1 KB on CC >= 8.0).
// - Diagnostics: EDG (`file(12): error: ...`), the host preprocessor
//   (`file:1:10: fatal error: ...`), `ptxas error   : ...`,
//   `ptxas <file>, line N; error   : ...`, `nvlink error   : ...`, `nvcc fatal   : ...`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warplens {

enum class ResourceOrigin : std::uint8_t { Ptxas, Nvlink };

struct FunctionResources {
  std::string symbol;      // as printed (nvlink's __nv_static_ prefix removed)
  std::string demangled;   // demangle(symbol)
  std::string arch;        // "sm_90" from the entry line; empty when not printed
  bool is_entry = false;   // a __global__ function (ptxas entry line or nvlink record)
  ResourceOrigin origin = ResourceOrigin::Ptxas;
  std::optional<int> registers;          // absent for non-entry functions
  int barriers = 0;
  std::int64_t shared_static_bytes = 0;  // ptxas: static __shared__; nvlink: incl. reservation
  std::int64_t stack_frame_bytes = 0;    // this function's own frame
  std::int64_t cumulative_stack_bytes = 0;  // with callees (ptxas) / nvlink "N stack"
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
  std::int64_t local_bytes = 0;          // nvlink "N bytes lmem"
  std::vector<std::pair<int, std::int64_t>> cmem;  // constant bank -> bytes
  int textures = 0, samplers = 0, surfaces = 0;
  std::optional<int> register_limit;     // "Overriding maximum register limit ... with N"

  std::int64_t stack_bytes() const { return std::max(stack_frame_bytes, cumulative_stack_bytes); }
  std::int64_t cmem_bank(int bank) const;
};

struct ToolDiagnostic {
  enum class Level : std::uint8_t { Fatal, Error, Warning };
  Level level = Level::Error;
  std::string tool;        // "nvcc", "ptxas", "nvlink", "cudafe" (EDG front end), "preprocessor"
  std::string file;        // as printed; empty for tool-level messages
  int line = 0;            // 1-based; 0 = none
  int column = 0;          // 1-based; 0 = none
  std::string message;
  std::vector<std::string> context;  // source excerpt / caret lines that followed
  std::string text() const;          // "file(12): error: message" style, one line
};

struct ToolOutput {
  std::vector<FunctionResources> functions;   // in printed order, one per symbol and origin
  std::vector<ToolDiagnostic> diagnostics;    // errors and warnings, in printed order
  bool resource_usage_withheld = false;       // nvcc: "Resource usage is not shown ..." (-rdc -c)
  std::int64_t gmem_bytes = 0;

  bool has_errors() const;
  const FunctionResources* find(std::string_view symbol, ResourceOrigin origin) const;
};

ToolOutput parse_nvcc_output(std::string_view text);

}  // namespace warplens
