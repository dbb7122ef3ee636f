// Memory accesses: kinds, spaces, element sizes, ranges, bases, and the
// ways code reaches memory (pointer locals, vector types, reinterpretation,
// struct fields, atomics, intrinsics, macros).
#include <doctest/doctest.h>

#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

TEST_CASE("loads, stores, read-modify-writes and atomics") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, const float* b, int* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  $st[[a[i]]] = $ld[[b[i]]];
  $rmw[[a[i + 1]]] += 1.0f;
  $inc[[counts[i]]]++;
  atomicAdd(&$at[[counts[i % 8]]], 1);
  atomicMax($atp[[counts + n]], i);
  float x = __ldg(&$ldg[[b[2 * i]]]);
  $st2[[a[n]]] = x;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("k");
  auto check = [&](const char* name, AccessKind kind, const char* base, int param, const char* index) {
    CAPTURE(name);
    const MemoryAccess& a = s.access(k, s.source.range(name), kind);
    CHECK(a.space == MemorySpace::Global);
    CHECK(a.base == base);
    CHECK(a.base_param == param);
    CHECK(a.element_bytes == 4);
    CHECK(to_string(a.index) == index);
    CHECK(a.guards.empty());
    CHECK(a.loops.empty());
    CHECK_FALSE(a.in_macro);
  };
  check("st", AccessKind::Store, "a", 0, "blockIdx.x * blockDim.x + threadIdx.x");
  check("ld", AccessKind::Load, "b", 1, "blockIdx.x * blockDim.x + threadIdx.x");
  check("rmw", AccessKind::Load, "a", 0, "blockIdx.x * blockDim.x + threadIdx.x + 1");
  check("rmw", AccessKind::Store, "a", 0, "blockIdx.x * blockDim.x + threadIdx.x + 1");
  check("inc", AccessKind::Load, "counts", 2, "blockIdx.x * blockDim.x + threadIdx.x");
  check("inc", AccessKind::Store, "counts", 2, "blockIdx.x * blockDim.x + threadIdx.x");
  check("at", AccessKind::Atomic, "counts", 2, "(blockIdx.x * blockDim.x + threadIdx.x) % 8");
  check("atp", AccessKind::Atomic, "counts", 2, "n");
  check("ldg", AccessKind::Load, "b", 1, "2 * (blockIdx.x * blockDim.x + threadIdx.x)");
  check("st2", AccessKind::Store, "a", 0, "n");
  CHECK(s.access(k, s.source.range("st"), AccessKind::Store).spelling == "a[i]");
  CHECK(k.accesses.size() == 10);
}

TEST_CASE("memory spaces: global, shared, constant, local, generic") {
  auto s = parse_snippet(R"cu(
__constant__ float coeffs[16];
__device__ int g_table[64];
__device__ float scale_of(const float* p, int i) { return $generic[[p[i]]]; }
__global__ void k(float* out) {
  __shared__ float tile[32];
  float local[4];
  $loc[[local[threadIdx.x % 4]]] = $const[[coeffs[threadIdx.x % 16]]];
  $sh[[tile[threadIdx.x]]] = $loc2[[local[0]]] + $dev[[g_table[threadIdx.x]]];
  __syncthreads();
  out[threadIdx.x] = scale_of(tile, threadIdx.x);
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("k");
  CHECK(s.access(k, s.source.range("loc"), AccessKind::Store).space == MemorySpace::Local);
  CHECK(s.access(k, s.source.range("loc2"), AccessKind::Load).space == MemorySpace::Local);
  CHECK(s.access(k, s.source.range("const"), AccessKind::Load).space == MemorySpace::Constant);
  CHECK(s.access(k, s.source.range("dev"), AccessKind::Load).space == MemorySpace::Global);
  const auto& sh = s.access(k, s.source.range("sh"), AccessKind::Store);
  CHECK(sh.space == MemorySpace::Shared);
  CHECK(sh.shared_array == "tile");
  CHECK(sh.base_param == -1);
  const Function& f = s.function("scale_of");
  const auto& g = s.access(f, s.source.range("generic"), AccessKind::Load);
  CHECK(g.space == MemorySpace::Generic);  // the caller decides what p points to
  CHECK(g.base_param == 0);
  CHECK(to_string(g.index) == "i");
  // The call passes tile: where it points, in the caller's terms.
  REQUIRE(k.calls.size() == 1);
  REQUIRE(k.calls[0].pointer_args.size() == 2);
  REQUIRE(k.calls[0].pointer_args[0]);
  CHECK(k.calls[0].pointer_args[0]->space == MemorySpace::Shared);
  CHECK(k.calls[0].pointer_args[0]->shared_array == "tile");
  CHECK(to_string(k.calls[0].pointer_args[0]->byte_offset) == "0");
  CHECK(to_string(k.calls[0].args[1]) == "threadIdx.x");
  CHECK_FALSE(k.calls[0].pointer_args[1]);
}

TEST_CASE("pointer locals resolve to the parameter they come from") {
  auto s = parse_snippet(R"cu(
__global__ void rows(const float* A, float* out, int cols) {
  int r = blockIdx.x;
  const float* row = A + r * cols;
  float* dst = &out[r * cols];
  int c = threadIdx.x;
  $st[[dst[c]]] = $ld[[row[c]]] + $deref[[*(row + c + 1)]];
  dst += 32;
  $st2[[dst[c]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("rows");
  const auto& ld = s.access(k, s.source.range("ld"), AccessKind::Load);
  CHECK(ld.base == "A");
  CHECK(ld.base_param == 0);
  CHECK(ld.through_pointer_arithmetic);
  CHECK(to_string(ld.index) == "blockIdx.x * cols + threadIdx.x");
  CHECK(to_string(ld.byte_offset) == "blockIdx.x * cols * 4 + threadIdx.x * 4");
  const auto& deref = s.access(k, s.source.range("deref"), AccessKind::Load);
  CHECK(deref.base == "A");
  CHECK(to_string(deref.index) == "blockIdx.x * cols + threadIdx.x + 1");
  const auto& st = s.access(k, s.source.range("st"), AccessKind::Store);
  CHECK(st.base == "out");
  CHECK(st.base_param == 1);
  CHECK(to_string(st.index) == "blockIdx.x * cols + threadIdx.x");
  CHECK(to_string(s.access(k, s.source.range("st2"), AccessKind::Store).index) ==
        "blockIdx.x * cols + 32 + threadIdx.x");
}

TEST_CASE("vector types and reinterpret casts use their real width") {
  auto s = parse_snippet(R"cu(
__global__ void vec(const float4* in4, float2* out2, const float* in, float* out, double2* d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = $v4[[in4[i]]];
  $v2[[out2[i]]] = make_float2(v.x, v.y);
  float4 w = $rc[[reinterpret_cast<const float4*>(in)[i]]];
  $cs[[((float4*)out)[i]]] = w;
  $comp[[out2[i].y]] = 1.0f;
  double2 dd = $d2[[d[i]]];
  float z = $ld4[[in4[i].z]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("vec");
  const auto& v4 = s.access(k, s.source.range("v4"), AccessKind::Load);
  CHECK(v4.element_type == "float4");
  CHECK(v4.element_bytes == 16);
  CHECK(to_string(v4.byte_offset) == "(blockIdx.x * blockDim.x + threadIdx.x) * 16");
  const auto& v2 = s.access(k, s.source.range("v2"), AccessKind::Store);
  CHECK(v2.element_bytes == 8);
  const auto& rc = s.access(k, s.source.range("rc"), AccessKind::Load);
  CHECK(rc.element_bytes == 16);
  CHECK(rc.reinterpreted);
  CHECK(rc.base == "in");
  CHECK(to_string(rc.index) == "blockIdx.x * blockDim.x + threadIdx.x");
  const auto& cs = s.access(k, s.source.range("cs"), AccessKind::Store);
  CHECK(cs.element_bytes == 16);
  CHECK(cs.reinterpreted);
  CHECK(cs.base == "out");
  const auto& comp = s.access(k, s.source.range("comp"), AccessKind::Store);
  CHECK(comp.element_bytes == 4);
  CHECK(to_string(comp.index) == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(to_string(comp.byte_offset) == "(blockIdx.x * blockDim.x + threadIdx.x) * 8 + 4");
  CHECK(s.access(k, s.source.range("d2"), AccessKind::Load).element_bytes == 16);
  CHECK(to_string(s.access(k, s.source.range("ld4"), AccessKind::Load).byte_offset) ==
        "(blockIdx.x * blockDim.x + threadIdx.x) * 16 + 8");
}

TEST_CASE("array-of-structs field accesses carry the field offset") {
  auto s = parse_snippet(R"cu(
struct Particle { float x, y, z; int id; };
__global__ void aos(Particle* p, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  $y[[p[i].y]] = 0.0f;
  $id[[p[i].id]] += 1;
  Particle* q = p + i;
  out[i] = $z[[q->z]];
  Particle whole = $whole[[p[n]]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("aos");
  const auto& y = s.access(k, s.source.range("y"), AccessKind::Store);
  CHECK(y.element_bytes == 4);
  CHECK(to_string(y.index) == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(to_string(y.byte_offset) == "(blockIdx.x * blockDim.x + threadIdx.x) * 16 + 4");
  CHECK(to_string(s.access(k, s.source.range("id"), AccessKind::Store).byte_offset) ==
        "(blockIdx.x * blockDim.x + threadIdx.x) * 16 + 12");
  const auto& z = s.access(k, s.source.range("z"), AccessKind::Load);
  CHECK(z.base == "p");
  CHECK(to_string(z.byte_offset) == "(blockIdx.x * blockDim.x + threadIdx.x) * 16 + 8");
  const auto& whole = s.access(k, s.source.range("whole"), AccessKind::Load);
  CHECK(whole.element_bytes == 16);
  CHECK(whole.element_type == "Particle");
}

TEST_CASE("accesses spelled through macros and struct parameters") {
  auto s = parse_snippet(R"cu(
#define IDX(r, c, ld) ((r) * (ld) + (c))
#define AT(m, r, c) m[IDX(r, c, n)]
struct Args { const float* in; float* out; int n; };
__global__ void k(Args args, float* m, int n) {
  int r = blockIdx.y, c = threadIdx.x;
  $macro[[AT(m, r, c)]] = 1.0f;
  $arg[[m[IDX(r, c, n)]]] = 2.0f;
  $field[[args.out[c]]] = $field_in[[args.in[c * args.n]]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("k");
  const auto& mac = s.access(k, s.source.range("macro"), AccessKind::Store);
  CHECK(mac.in_macro);
  CHECK(to_string(mac.index) == "blockIdx.y * n + threadIdx.x");
  const auto& arg = s.access(k, s.source.range("arg"), AccessKind::Store);
  CHECK_FALSE(arg.in_macro);
  CHECK(to_string(arg.index) == "blockIdx.y * n + threadIdx.x");
  const auto& field = s.access(k, s.source.range("field"), AccessKind::Store);
  CHECK(field.base == "args.out");
  CHECK(field.base_param == 0);
  CHECK(field.space == MemorySpace::Global);
  CHECK(to_string(s.access(k, s.source.range("field_in"), AccessKind::Load).index) == "threadIdx.x * args.n");
}

TEST_CASE("pointers the builder cannot follow still give an index relative to them") {
  auto s = parse_snippet(R"cu(
struct Acc {
  float* data;
  __device__ void add(int i, float v) { $member[[data[i]]] += v; }
};
__device__ float* g_ptr;
__global__ void k(float** ptrs, Acc acc) {
  $nested[[ptrs[blockIdx.x][threadIdx.x]]] = $global_ptr[[g_ptr[threadIdx.x]]];
  acc.add(threadIdx.x, 1);
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& add = s.function("Acc::add(int, float)");
  CHECK(add.accesses.size() == 2);  // data[i] load + store; reading this->data is not an access
  const auto& m = s.access(add, s.source.range("member"), AccessKind::Store);
  CHECK(m.space == MemorySpace::Generic);
  CHECK(m.base == "data");
  CHECK(to_string(m.index) == "i");
  const Function& k = s.function("k");
  const auto& nested = s.access(k, s.source.range("nested"), AccessKind::Store);
  CHECK(nested.space == MemorySpace::Generic);
  CHECK(nested.base == "ptrs[blockIdx.x]");
  CHECK(to_string(nested.index) == "threadIdx.x");
  CHECK(to_string(s.access(k, s.source.range("global_ptr"), AccessKind::Load).index) == "threadIdx.x");
  // The pointer loads themselves are global accesses.
  int pointer_loads = 0;
  for (const auto& a : k.accesses)
    if (a.element_bytes == 8 && a.kind == AccessKind::Load) ++pointer_loads;
  CHECK(pointer_loads == 2);
}
