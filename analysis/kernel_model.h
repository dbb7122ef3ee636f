// The kernel model: what the Clang front end found in one translation unit,
// as plain C++ data. Every analysis (coalescing, bank conflicts, divergence,
// occupancy, fusion) reads this and nothing else from Clang, so analyses and
// their tests never include a Clang header.
//
// Conventions:
// - Ranges are byte-based (see source_range.h) and refer to the main file.
// - Ids (condition, loop) are indices into the owning Function's vectors.
// - Expressions are in the callee's own terms: an access inside a __device__
//   function indexes with that function's parameters (SymbolKind::Param); the
//   analyzer binds them through CallSite::args when it inlines the call.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/index_expr.h"
#include "analysis/source_range.h"

namespace warplens {

enum class MemorySpace : std::uint8_t { Global, Shared, Local, Constant, Generic };
enum class AccessKind : std::uint8_t { Load, Store, Atomic };

const char* to_string(MemorySpace s);
const char* to_string(AccessKind k);

// A control-flow condition that some statements depend on.
enum class ConditionKind : std::uint8_t {
  If,         // if (cond) ... [else ...]
  Ternary,    // cond ? a : b
  LoopExit,   // the loop condition of a for/while/do (guards the body)
  EarlyExit,  // if (cond) return/break/continue; guards what follows
  Switch,     // switch (cond): case bodies are guarded by `cond == label`
  ShortCircuit,  // a && b / a || b: b runs only when a is true / false
};

struct Condition {
  ConditionKind kind = ConditionKind::If;
  ExprRef expr;            // the condition; null when it could not be lowered
  std::string spelling;    // source text of the condition
  Range range;             // range of the condition expression
  Range statement_range;   // range of the whole if/loop/switch statement
  int parent = -1;         // enclosing condition, or -1
};

// "This statement runs only when condition `condition` evaluated to `taken`."
struct Guard {
  int condition = -1;
  bool taken = true;
  bool operator==(const Guard&) const = default;
};

struct Loop {
  std::string induction_variable;  // empty when none was recognised
  ExprRef init;                    // initial value of the induction variable
  ExprRef step;                    // per-iteration increment (i += step); null if not affine
  ExprRef bound;                   // loop condition
  bool uniform_trip = false;       // every lane of a warp runs the same iterations
  Range range;
  int parent = -1;                 // enclosing loop, or -1
  int condition = -1;              // the LoopExit condition for this loop
  std::optional<int> unroll;       // #pragma unroll N (0 = full unroll requested)
};

struct MemoryAccess {
  MemorySpace space = MemorySpace::Global;
  AccessKind kind = AccessKind::Load;
  std::string base;           // the array or pointer as written, e.g. "A", "tile"
  std::string spelling;       // the access as written, e.g. "A[r * cols + c]"
  Range range;                // range of the access expression
  std::string element_type;   // accessed type, e.g. "float", "float4"
  int element_bytes = 0;      // its size; vector types use their real width
  int element_align = 0;      // its alignment in bytes (0 = unknown). A struct
                              // wider than its alignment (float3, uchar3, a
                              // struct of floats) is moved in alignment-wide
                              // pieces, one memory instruction each.
  ExprRef index;              // index in elements of the base, flattened over
                              // array dimensions; null when not modelled.
                              // The unit is the element the subscript (or
                              // pointer arithmetic) steps over: `tile[y][x]`
                              // -> y * W + x, `p[i].y` (AoS) -> i,
                              // `reinterpret_cast<float4*>(p)[i]` -> i.
  ExprRef byte_offset;        // byte offset from the base pointer; null when not
                              // modelled. Exact (includes struct field
                              // offsets): the one to compute addresses with.
  bool reinterpreted = false;  // accessed through a cast to another element type
  bool through_pointer_arithmetic = false;  // base is `p + k` / a pointer local
  int base_param = -1;        // index of the function parameter the base comes from
  std::string shared_array;   // for Shared: the __shared__ array's name
  std::vector<Guard> guards;  // enclosing conditions, outermost first
  std::vector<int> loops;     // enclosing loops, outermost first
  bool in_macro = false;      // the access is spelled inside a macro expansion
};

enum class BarrierKind : std::uint8_t {
  SyncThreads,      // __syncthreads, __syncthreads_{count,and,or}, bar.sync
  SyncWarp,         // __syncwarp
  CooperativeGroup, // cg::this_thread_block().sync(), cg::sync(block), grid.sync()
};

struct Barrier {
  BarrierKind kind = BarrierKind::SyncThreads;
  std::string spelling;
  Range range;
  std::vector<Guard> guards;
  std::vector<int> loops;
};

// Where a pointer argument of a call points, in the caller's terms.
struct PointerTarget {
  MemorySpace space = MemorySpace::Generic;
  std::string base;            // the caller's array or pointer, e.g. "A", "tile"
  int base_param = -1;         // the caller's parameter it derives from
  std::string shared_array;    // for Shared: the __shared__ array's name
  ExprRef byte_offset;         // from `base`; null when not modelled
};

struct CallSite {
  std::string callee;          // name of the called __device__ function
  std::string callee_key;      // Function::key of the callee (resolves overloads)
  Range range;
  std::vector<ExprRef> args;   // argument values in the caller's terms
                               // (pointer arguments: an Opaque; see pointer_args)
  std::vector<std::optional<PointerTarget>> pointer_args;  // parallel to args; set
                                                           // for pointer arguments
  std::vector<Guard> guards;
  std::vector<int> loops;
};

struct Parameter {
  std::string name;
  std::string type;            // as written/printed, e.g. "const float *__restrict__"
  Range range;
  bool is_pointer = false;
  std::string pointee_type;    // for pointers
  int pointee_bytes = 0;
  bool pointee_const = false;
  bool is_restrict = false;
  bool is_reference = false;
};

struct SharedArray {
  std::string name;
  std::string element_type;
  int element_bytes = 0;
  std::vector<std::int64_t> dims;   // outermost first; 0 = unknown/unsized (extern)
  bool is_extern = false;           // extern __shared__ (dynamic)
  Range range;                      // the declaration
  Range innermost_dim_range;        // the innermost `[N]` size expression, for padding fixes
  std::string innermost_dim_spelling;
  bool address_escapes = false;     // used via pointer arithmetic, reinterpretation,
                                    // or passed to a function: layout edits are unsafe
  int alignment = 0;                // __align__ / alignas, 0 = natural
};

struct LaunchBounds {
  std::optional<std::int64_t> max_threads;
  std::optional<std::int64_t> min_blocks;
  std::string spelling;            // "__launch_bounds__(256, 2)"
  Range range;                     // range of the attribute, for editing it
};

enum class FunctionKind : std::uint8_t { Kernel, Device, HostDevice };

struct Function {
  std::string name;                // "transpose"
  std::string key;                 // unique within the TU: qualified name + signature
  std::string signature;           // "void transpose(const float *, float *, int)"
  FunctionKind kind = FunctionKind::Kernel;
  Range range;                     // whole definition
  Range name_range;                // the name in the declarator
  Range body_range;
  Range declaration_start;         // empty range where attributes can be inserted
  std::vector<Parameter> params;
  std::optional<LaunchBounds> launch_bounds;
  bool is_template = false;        // a template pattern (accesses may be dependent)
  std::string template_args;       // for an instantiation: "<float, 256>"
  std::vector<SharedArray> shared_arrays;
  std::vector<MemoryAccess> accesses;
  std::vector<Condition> conditions;
  std::vector<Loop> loops;
  std::vector<Barrier> barriers;
  std::vector<CallSite> calls;
};

struct Dim3Value {
  std::string spelling;                              // "dim3(TILE, TILE)", "grid"
  std::optional<std::array<std::int64_t, 3>> value;  // when constant-evaluable
};

struct LaunchSite {
  std::string kernel;            // callee name
  std::string kernel_key;        // Function::key, empty when indirect
  std::string caller;            // enclosing host function
  Range range;                   // the whole `k<<<...>>>(...)` expression
  Range config_range;            // the `<<<...>>>` part
  Dim3Value grid;
  Dim3Value block;
  std::string shared_bytes_spelling;
  std::optional<std::int64_t> shared_bytes;
  std::string stream_spelling;   // empty = default stream
  std::vector<std::string> args; // argument spellings
  std::string template_args;     // explicit template arguments, if any
  bool in_loop = false;
};

struct KernelModel {
  std::string file;
  std::vector<Function> functions;   // kernels and the __device__ functions they use
  std::vector<LaunchSite> launches;

  const Function* find(const std::string& key) const;
  std::vector<const Function*> kernels() const;
};

}  // namespace warplens
