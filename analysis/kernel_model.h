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
  bool pointer_escapes = false; // (pointers) used in a way the accesses do not show:
                                // stored, passed to a function the model does not
                                // follow, modified, converted: what the function
                                // reads or writes through it is not all known
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

// Floating-point arithmetic in a function body, for the roofline's flop
// count (analysis/work_estimate.h): + - * / on float or double, and math
// library calls (a fused multiply-add counts two).
struct FlopSite {
  int flops = 1;
  bool fp64 = false;
  std::vector<int> loops;  // enclosing loops, outermost first
};

enum class FunctionKind : std::uint8_t { Kernel, Device, HostDevice };

struct Function {
  std::string file;                // empty: the model's file; else the header it is defined in
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
  std::vector<FlopSite> flops;
};

struct Dim3Value {
  std::string spelling;                              // "dim3(TILE, TILE)", "grid"
  std::optional<std::array<std::int64_t, 3>> value;  // when constant-evaluable
  Range range;                                       // of the argument as written (block only; for fixes)
};

struct LaunchSite {
  std::string kernel;            // callee name
  std::string kernel_key;        // Function::key, empty when indirect
  std::vector<std::string> kernel_candidates;  // indirect launches (a function pointer, a
                                 // kernel table, a pointer parameter): the keys of the
                                 // kernels whose address reaches the callee in this file
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

// ---------------------------------------------------------------- host code
// What host functions do with device memory, in source order: allocations,
// copies, launches and every other mention of a buffer variable. Read by the
// fusion analysis (fusion.h). Buffers are the host's pointer variables (not
// the memory itself: two variables holding the same address are two buffers
// joined by a `CopiedTo` use); events name them by index into
// HostFunction::buffers.

enum class BufferStorage : std::uint8_t {
  Local,       // a local variable of the host function
  Parameter,   // a parameter: the caller may use the memory before and after
  Global,      // a namespace-scope or static variable
  Member,      // a data member (`d_tmp`, `this->d_tmp`)
  Expression,  // anything else (`bufs[0]`, `s.tmp`, `v.data()`): keyed by its spelling
};

struct HostBuffer {
  std::string name;            // "tmp", "bufs[0]"
  BufferStorage storage = BufferStorage::Local;
  Range declaration;           // the variable's declaration (empty outside the target file)
  std::string pointee_type;    // "float"
  int pointee_bytes = 0;
};

// A buffer named by an expression: `tmp`, `tmp + off`, `&tmp[k]`, `(void*)tmp`.
struct BufferRef {
  int buffer = -1;             // index into HostFunction::buffers; -1: not a buffer
  bool offset = false;         // points into the buffer, not at its start
};

struct ByteCount {
  std::string spelling;                 // "n * sizeof(float)"
  std::optional<std::int64_t> value;    // when constant-evaluable (constexpr,
                                        // const locals, sizeof, literals)
};

enum class HostEventKind : std::uint8_t {
  Allocate,     // cudaMalloc / cudaMallocAsync / cudaMallocManaged / cudaMallocPitch (&p, ...)
                // or `T* p = helper(...)` (a pointer returned by a call)
  Free,         // cudaFree / cudaFreeAsync (p)
  Copy,         // cudaMemcpy* (dst, src, bytes, kind[, stream])
  Set,          // cudaMemset* (p, value, bytes[, stream])
  Launch,       // kernel<<<...>>>(args)
  Use,          // any other mention of a buffer (see BufferUse)
  Synchronize,  // cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaStreamWaitEvent
  ScopeEnd,     // a local buffer variable goes out of scope
};

enum class AllocationKind : std::uint8_t {
  Malloc,         // cudaMalloc
  MallocAsync,    // cudaMallocAsync / cudaMallocFromPoolAsync (stream-ordered)
  MallocManaged,  // cudaMallocManaged: the host may also read it through the pointer
  MallocPitch,    // cudaMallocPitch / cudaMalloc3D: bytes not known statically
  MallocHost,     // cudaMallocHost / cudaHostAlloc: pinned host memory
  Returned,       // the pointer is returned by a call (`device_buffer<float>(n)`)
};

enum class CopyDirection : std::uint8_t { HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Default, Unknown };

enum class BufferUse : std::uint8_t {
  HostRead,      // read on the host: `tmp[i]`, `*tmp` (managed memory)
  HostWrite,     // written on the host: `tmp[i] = v`
  Passed,        // argument of a function the model does not follow (escapes)
  AddressTaken,  // `&tmp` other than as cudaMalloc's out-parameter (escapes)
  CopiedTo,      // `q = tmp`, `T* q = tmp`: another variable now holds the address (alias)
  Reassigned,    // `tmp = q`, `std::swap(tmp, q)`: tmp now names other memory
  Advanced,      // `tmp += k`, `++tmp`: still points into the same memory, elsewhere
  Stored,        // stored into memory or captured by a lambda (escapes)
  Returned,      // `return tmp` (escapes)
  Other,         // any other expression that uses the pointer value
};

enum class SyncKind : std::uint8_t { Device, Stream, Event, StreamWaitEvent };

const char* to_string(HostEventKind k);
const char* to_string(AllocationKind k);
const char* to_string(CopyDirection d);
const char* to_string(BufferUse u);

struct HostEvent {
  HostEventKind kind = HostEventKind::Use;
  Range range;                 // the call, launch or expression
  std::string spelling;        // the callee ("cudaMemcpyAsync", kernel name) or the use as written
  int region = -1;             // innermost HostRegion around it; -1 = the function body
  BufferRef buffer;            // Allocate, Free, Set, Use, ScopeEnd
  AllocationKind allocation = AllocationKind::Malloc;  // Allocate
  ByteCount bytes;             // Allocate, Copy, Set
  BufferRef source, destination;  // Copy (-1: host memory or not a buffer)
  CopyDirection direction = CopyDirection::Unknown;  // Copy
  std::string stream;          // the stream argument as written; empty = the default stream
  bool async = false;          // Copy, Set, Allocate, Free: the *Async form
  int launch = -1;             // Launch: index into KernelModel::launches
  std::vector<BufferRef> arguments;  // Launch: per kernel argument
  BufferUse use = BufferUse::Other;  // Use
  int other = -1;              // Use CopiedTo / Reassigned: the other buffer, when it is one
  SyncKind sync = SyncKind::Device;  // Synchronize
};

// A loop or a branch of host code. Events inside one are contiguous in
// HostFunction::events.
enum class HostRegionKind : std::uint8_t { Loop, Branch };
struct HostRegion {
  HostRegionKind kind = HostRegionKind::Loop;
  Range range;                 // the loop statement, or the branch's statement
  int parent = -1;             // enclosing region, -1 = the function body
};

struct HostFunction {
  std::string name;            // "main", "Model::forward"
  Range range;
  std::vector<HostBuffer> buffers;
  std::vector<HostRegion> regions;
  std::vector<HostEvent> events;   // in source order
};

struct KernelModel {
  std::string file;
  std::vector<Function> functions;   // kernels and the __device__ functions they use
  // __device__ functions defined in the project's own headers (not system
  // headers) that functions of this file call, directly or through each
  // other: each with `file` set, its ranges in that file. Kept apart so that
  // consumers of `functions` keep seeing only this file's code; the warp
  // analyses inline them (device_call_inlining.h) and report at their lines.
  std::vector<Function> included_functions;
  std::vector<LaunchSite> launches;
  std::vector<HostFunction> host_functions;  // host functions that use device buffers

  const Function* find(const std::string& key) const;
  // find() over `functions`, then `included_functions`.
  const Function* find_callee(const std::string& key) const;
  std::vector<const Function*> kernels() const;
};

}  // namespace warplens
