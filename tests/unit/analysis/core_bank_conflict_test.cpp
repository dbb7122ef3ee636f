// shared-bank-conflict and its padding fix on hand-built kernel models.
#include <doctest/doctest.h>

#include "analysis/shared_padding.h"
#include "analysis/static_analyses.h"
#include "static_model_fixtures.h"

using namespace warplens;
using namespace warplens::fixtures;

namespace {

// Tiled transpose: tile[ty][tx] = in[...] (line 5); out[...] = tile[tx][ty] (line 7).
Function tiled_transpose(std::int64_t inner, const std::string& inner_spelling = {}) {
  Function k = kernel("transpose_tiled", {pointer_param("in", "float", 4), pointer_param("out", "float", 4),
                                          int_param("N")});
  shared_array(k, "tile", {32, inner}, 4, inner_spelling);
  shared(k, AccessKind::Store, "tile", {ty(), tx()}, 5);
  barrier(k, 6);
  shared(k, AccessKind::Load, "tile", {tx(), ty()}, 7, 30);
  return k;
}

}  // namespace

TEST_CASE("tiled transpose: the column read is a 32-way conflict with a padding fix") {
  Function k = tiled_transpose(32);
  KernelModel m = model_of({k}, {launch(k, 32, 32, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  const Finding& f = fs[0];
  CHECK(f.severity == Severity::Warning);
  CHECK(f.location.range.start.line == 6);
  CHECK(int_data(f, "degree") == 32);
  CHECK(int_data(f, "wavefronts") == 32);
  CHECK(int_data(f, "ideal") == 1);
  CHECK(str_data(f, "access") == "load");
  CHECK(f.message ==
        "32-way bank conflict on shared load of `tile[threadIdx.x][threadIdx.y]`: consecutive lanes are 128 "
        "bytes apart — 32 wavefronts per request, ideal 1");
  // the bank map: bank 0 holds all 32 words
  CHECK(f.explanation_markdown.find("words 32  0  0") != std::string::npos);
  REQUIRE(f.fixes.size() == 1);
  REQUIRE(f.fixes[0].edits.size() == 1);
  CHECK(f.fixes[0].edits[0].new_text == "33");
  CHECK(f.fixes[0].edits[0].range == m.functions[0].shared_arrays[0].innermost_dim_range);
  CHECK(f.fixes[0].title == "Pad `tile` to 33 columns (removes the 32-way bank conflict)");
}

TEST_CASE("a symbolic extent is padded symbolically") {
  Function k = tiled_transpose(32, "TILE_DIM");
  KernelModel m = model_of({k}, {launch(k, 32, 8, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  REQUIRE(fs[0].fixes.size() == 1);
  CHECK(fs[0].fixes[0].edits[0].new_text == "TILE_DIM + 1");
}

TEST_CASE("the padded tile is conflict-free") {
  Function k = tiled_transpose(33);
  KernelModel m = model_of({k}, {launch(k, 32, 8, 40)});
  CHECK(with_code(run_static_analyses(m, {}), codes::kSharedBankConflict).empty());
}

TEST_CASE("no fix when the array's address escapes") {
  Function k = tiled_transpose(32);
  k.shared_arrays[0].address_escapes = true;
  KernelModel m = model_of({k}, {launch(k, 32, 8, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].fixes.empty());
  CHECK(fs[0].explanation_markdown.find("No padding fix offered") != std::string::npos);
}

TEST_CASE("no fix when every padding makes another access of the array conflict") {
  // tile[tx][0] needs an odd row length; tile[tx][tx] then needs an even one.
  Function k = kernel("diag", {pointer_param("out", "float", 4)});
  shared_array(k, "tile", {32, 32});
  shared(k, AccessKind::Load, "tile", {tx(), c(0)}, 5);
  shared(k, AccessKind::Load, "tile", {tx(), tx()}, 6);
  KernelModel m = model_of({k}, {launch(k, 32, 1, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 4);
  CHECK(fs[0].fixes.empty());
}

TEST_CASE("padding arithmetic keeps in-bounds element positions") {
  // element [2][5] of a [.][32] float array is byte (2*32+5)*4; padded by 1: (2*33+5)*4
  CHECK(padded_offset((2 * 32 + 5) * 4, 4, 32, 1) == (2 * 33 + 5) * 4);
  CHECK(padded_offset((2 * 32 + 5) * 8, 8, 32, 2) == (2 * 34 + 5) * 8);
}

TEST_CASE("8- and 16-byte elements are compared against 2 and 4 ideal wavefronts") {
  Function k = kernel("wide", {pointer_param("out", "double", 8)});
  shared_array(k, "d", {512}, 8);
  shared(k, AccessKind::Load, "d", {tx()}, 3);        // 2 wavefronts, ideal 2: fine
  shared(k, AccessKind::Load, "d", {tx() * 2}, 4);    // 4, ideal 2: 2-way
  shared_array(k, "v", {256}, 16);
  shared(k, AccessKind::Store, "v", {tx()}, 5);       // 4, ideal 4: fine
  KernelModel m = model_of({k}, {launch(k, 128, 1, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 3);
  CHECK(int_data(fs[0], "degree") == 2);
  CHECK(int_data(fs[0], "wavefronts") == 4);
  CHECK(int_data(fs[0], "ideal") == 2);
  CHECK(fs[0].fixes.empty());  // 1-D arrays have no innermost dimension to pad
}

TEST_CASE("2-D block narrower than a warp: the second row of lanes matters") {
  // [16][16] tile read by column with a 16x16 block: word tx*16 + ty puts the
  // 8 even-tx lanes of each row into one bank -> 8-way. Padding to 17 still
  // leaves 2-way (17*15 + 1 = 256 meets 0); 18 separates the two rows.
  Function k = kernel("narrow", {pointer_param("out", "float", 4)});
  shared_array(k, "t", {16, 16});
  shared(k, AccessKind::Load, "t", {tx(), ty()}, 3);
  KernelModel m = model_of({k}, {launch(k, 16, 16, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(int_data(fs[0], "degree") == 8);
  REQUIRE(fs[0].fixes.size() == 1);
  CHECK(fs[0].fixes[0].edits[0].new_text == "18");
}

TEST_CASE("broadcasts and shared histograms (indirect) are not bank-conflict warnings") {
  Function k = kernel("hist", {pointer_param("in", "int", 4)});
  shared_array(k, "bins", {256});
  shared(k, AccessKind::Load, "bins", {c(0)}, 3);
  MemoryAccess& a = shared(k, AccessKind::Atomic, "bins", {Expr::load("in", gid())}, 4);
  (void)a;
  KernelModel m = model_of({k}, {launch(k, 256, 1, 40)});
  auto all = run_static_analyses(m, {});
  CHECK(with_code(all, codes::kSharedBankConflict).empty());
  auto ind = with_code(all, codes::kIndirectAccess);
  REQUIRE(ind.size() == 1);
  CHECK(ind[0].severity == Severity::Hint);
  CHECK(ind[0].message.find("bank conflicts cannot be judged statically") != std::string::npos);
}

TEST_CASE("a shared array passed to a device function is still shared memory") {
  // __device__ void put(float* s, int i) { s[i] = 0; }  called as put(tile, threadIdx.x * 32)
  Function put = kernel("put", {pointer_param("s", "float", 4), int_param("i")}, FunctionKind::Device);
  MemoryAccess& a = global(put, AccessKind::Store, "s", p("i"), 2, 4, "s[i]");
  a.space = MemorySpace::Generic;
  Function k = kernel("caller", {pointer_param("out", "float", 4)});
  shared_array(k, "tile", {32, 32});
  k.shared_arrays[0].address_escapes = true;
  CallSite call;
  call.callee = "put";
  call.callee_key = "put()";
  call.range = line_range(8);
  call.args = {local("tile", true), tx() * 32};
  k.calls.push_back(call);
  KernelModel m = model_of({put, k}, {launch(k, 32, 1, 40)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 1);
  CHECK(int_data(fs[0], "degree") == 32);
}

TEST_CASE("no launch: a tile indexed [threadIdx.y][threadIdx.x] gives the block shape") {
  // tile[ty][tx] of a 16×16 tile, read back as tile[tx][ty]: with the tile's
  // own 16×16 block the column read is 8-way (even columns share a bank).
  Function k = tiled_transpose(16);
  k.shared_arrays[0].dims = {16, 16};
  k.accesses.clear();
  shared(k, AccessKind::Store, "tile", {ty(), tx()}, 5);
  shared(k, AccessKind::Load, "tile", {tx(), ty()}, 7, 30);
  auto fs = with_code(run_static_analyses(model_of({k}), {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Warning);  // the code gives the shape: not a guess
  CHECK(str_data(fs[0], "block_shape") == "16×16");
  CHECK(str_data(fs[0], "block_source") ==
        "the block 16×16 implied by `tile[threadIdx.y][threadIdx.x]` of `float tile[16][16]` (no launch of this "
        "kernel in this file)");
  CHECK(int_data(fs[0], "degree") == 8);
}

TEST_CASE("no launch: a tile width fixes the guessed widths, and an unsure verdict names its shapes") {
  // tile[ty + 16 * j][tx]: the block is as wide as the tile (less its
  // padding), its height unknown (8, 16 or 32 rows are guessed).
  auto build = [](std::int64_t inner) {
    Function k = kernel("t", {pointer_param("out", "float", 4)});
    shared_array(k, "tile", {32, inner}, 4);
    int l = loop(k, "j", lt(iter("j"), c(2)), "j < 2", 4, 6);
    auto& st = shared(k, AccessKind::Store, "tile", {ty() + iter("j") * 16, tx()}, 5);
    st.loops = {l};
    shared(k, AccessKind::Load, "tile", {tx(), ty()}, 7, 30);
    return k;
  };
  // Padded: conflict-free whatever the height.
  CHECK(with_code(run_static_analyses(model_of({build(33)}), {}), codes::kSharedBankConflict).empty());
  // Unpadded: tile[tx][ty] is 32-way in every 32-wide shape: a warning.
  auto fs = with_code(run_static_analyses(model_of({build(32)}), {}), codes::kSharedBankConflict);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Warning);
  CHECK(int_data(fs[0], "degree") == 32);
  CHECK(str_data(fs[0], "block_shape") == "32×8");
  CHECK(str_data(fs[0], "block_source").find("the guessed block 32×8 (width implied by `tile[") == 0);
}
