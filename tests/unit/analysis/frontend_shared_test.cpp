// __shared__ arrays: element type and size, dimensions, extern, the
// innermost dimension's range (for padding fixes), escapes, alignment.
#include <doctest/doctest.h>

#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {
const SharedArray& shared(const Function& f, const std::string& name) {
  for (const auto& s : f.shared_arrays)
    if (s.name == name) return s;
  throw std::invalid_argument("no shared array " + name);
}
}  // namespace

TEST_CASE("shared array declarations") {
  auto s = parse_snippet(R"cu(
#define TILE 32
extern __shared__ float4 dyn[];
__global__ void k(float* out) {
  $tile_decl[[__shared__ float tile[TILE][$inner[[TILE + 1]]]]];
  __shared__ double d3[2][4][$d3inner[[8]]];
  __shared__ __align__(16) unsigned char bytes[$bytes_inner[[64]]];
  __shared__ int counter;
  tile[threadIdx.y][threadIdx.x] = d3[0][1][threadIdx.x % 8] + bytes[threadIdx.x] + counter;
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y] + dyn[threadIdx.x].x;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  CHECK(f.shared_arrays.size() == 5);

  const auto& tile = shared(f, "tile");
  CHECK(tile.element_type == "float");
  CHECK(tile.element_bytes == 4);
  CHECK(tile.dims == std::vector<std::int64_t>{32, 33});
  CHECK_FALSE(tile.is_extern);
  CHECK(tile.range == s.source.range("tile_decl"));
  CHECK(tile.innermost_dim_range == s.source.range("inner"));
  CHECK(tile.innermost_dim_spelling == "TILE + 1");
  CHECK_FALSE(tile.address_escapes);
  CHECK(tile.alignment == 0);

  const auto& d3 = shared(f, "d3");
  CHECK(d3.dims == std::vector<std::int64_t>{2, 4, 8});
  CHECK(d3.element_bytes == 8);
  CHECK(d3.innermost_dim_range == s.source.range("d3inner"));

  const auto& bytes = shared(f, "bytes");
  CHECK(bytes.alignment == 16);
  CHECK(bytes.innermost_dim_range == s.source.range("bytes_inner"));

  const auto& counter = shared(f, "counter");
  CHECK(counter.dims.empty());
  CHECK(counter.element_bytes == 4);

  const auto& dyn = shared(f, "dyn");
  CHECK(dyn.is_extern);
  CHECK(dyn.dims == std::vector<std::int64_t>{0});
  CHECK(dyn.element_type == "float4");
  CHECK(dyn.element_bytes == 16);

  // A 3-D access flattens over all dimensions.
  bool found = false;
  for (const auto& a : f.accesses)
    if (a.shared_array == "d3") {
      found = true;
      CHECK(to_string(a.index) == "8 + threadIdx.x % 8");
    }
  CHECK(found);
}

TEST_CASE("escaping addresses make layout edits unsafe") {
  auto s = parse_snippet(R"cu(
__device__ void consume(float* p);
__global__ void k(float* out) {
  __shared__ float direct[32][33];
  __shared__ float arith[64];
  __shared__ float recast[128];
  __shared__ float passed[32];
  __shared__ int hist[256];
  __shared__ float rowptr[8][32];
  direct[threadIdx.y][threadIdx.x] = 1;
  *(arith + threadIdx.x) = 2;
  reinterpret_cast<float4*>(recast)[threadIdx.x] = make_float4(0, 0, 0, 0);
  consume(passed);
  atomicAdd(&hist[threadIdx.x % 256], 1);   // atomics are direct accesses
  float* row = rowptr[threadIdx.y];
  row[threadIdx.x] = 3;
  out[0] = direct[0][0] + arith[1] + passed[2] + hist[3];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  CHECK_FALSE(shared(f, "direct").address_escapes);
  CHECK(shared(f, "arith").address_escapes);
  CHECK(shared(f, "recast").address_escapes);
  CHECK(shared(f, "passed").address_escapes);
  CHECK_FALSE(shared(f, "hist").address_escapes);
  CHECK(shared(f, "rowptr").address_escapes);
  // The row pointer still resolves to the array.
  bool row_access = false;
  for (const auto& a : f.accesses)
    if (a.spelling == "row[threadIdx.x]") {
      row_access = true;
      CHECK(a.shared_array == "rowptr");
      CHECK(to_string(a.index) == "threadIdx.y * 32 + threadIdx.x");
    }
  CHECK(row_access);
}
