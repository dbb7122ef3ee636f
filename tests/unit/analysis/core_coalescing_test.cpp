// uncoalesced-global (data-dependent addresses included) and indirect-access on hand-built kernel models.
#include <doctest/doctest.h>

#include <algorithm>

#include "analysis/static_analyses.h"
#include "analysis/warp_model.h"
#include "static_model_fixtures.h"

using namespace warplens;
using namespace warplens::fixtures;

namespace {

// transpose(in, out, N): x = blockIdx.x*32 + tx, y = blockIdx.y*32 + ty;
// out[x * N + y] = in[y * N + x]   (load and store on line 5)
Function naive_transpose() {
  Function k = kernel("transpose", {pointer_param("in", "float", 4), pointer_param("out", "float", 4), int_param("N")});
  ExprRef x = bx() * 32 + tx();
  ExprRef y = by() * 32 + ty();
  global(k, AccessKind::Load, "in", y * p("N") + x, 5, 4, "in[y * N + x]", 20);
  global(k, AccessKind::Store, "out", x * p("N") + y, 5, 4, "out[x * N + y]", 4);
  return k;
}

}  // namespace

TEST_CASE("naive transpose: the store is uncoalesced, the load on the same line is not") {
  Function k = naive_transpose();
  KernelModel m = model_of({k}, {launch(k, 32, 8, 30)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  const Finding& f = fs[0];
  CHECK(f.severity == Severity::Warning);
  CHECK(str_data(f, "access") == "store");
  CHECK(int_data(f, "sectors") == 32);
  CHECK(int_data(f, "ideal") == 4);
  CHECK(f.message ==
        "uncoalesced store of `out[x * N + y]`: consecutive lanes are `N`×4 bytes apart — 32 sectors per "
        "request, ideal 4 (8.0× traffic for large `N`)");
  CHECK(f.explanation_markdown.find("Block shape **32×8** from the launch at line 30") != std::string::npos);
  // `N` is unknown: the lanes' offsets are given in terms of it, never as the
  // stand-in numbers the model evaluated with, and their sectors are unknown.
  const std::string lanes =
      "| lane | thread (x, y, z) |     byte offset |  sector |\n"
      "|-----:|------------------|----------------:|--------:|\n"
      "|    0 | (0, 0, 0)        |         unknown | unknown |\n"
      "|    1 | (1, 0, 0)        |  lane 0 + 4 * N | unknown |\n"
      "|    2 | (2, 0, 0)        |  lane 0 + 8 * N | unknown |\n"
      "|    3 | (3, 0, 0)        | lane 0 + 12 * N | unknown |\n"
      "|    4 | (4, 0, 0)        | lane 0 + 16 * N | unknown |\n"
      "|    5 | (5, 0, 0)        | lane 0 + 20 * N | unknown |\n"
      "|    6 | (6, 0, 0)        | lane 0 + 24 * N | unknown |\n"
      "|    7 | (7, 0, 0)        | lane 0 + 28 * N | unknown |\n";
  CHECK_MESSAGE(f.explanation_markdown.find(lanes) != std::string::npos, f.explanation_markdown);
  CHECK(f.explanation_markdown.find("the table gives offsets in terms of it and no sectors") != std::string::npos);
  CHECK(f.location.range.start.line == 4);
  CHECK(f.kernel == "transpose()");
}

TEST_CASE("a literal launch argument turns the symbolic stride into bytes") {
  Function k = naive_transpose();
  KernelModel m = model_of({k}, {launch(k, 32, 8, 30, {"d_in", "d_out", "2048"})});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].message.find("(8192 bytes at this launch)") != std::string::npos);
}

TEST_CASE("loads and stores on one line are separate findings") {
  Function k = kernel("scale", {pointer_param("a", "float", 4), int_param("n")});
  global(k, AccessKind::Load, "a", gid() * p("n"), 3, 4, "a[i * n]", 20);
  global(k, AccessKind::Store, "a", gid() * p("n"), 3, 4, "a[i * n]", 4);
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  CHECK(str_data(fs[0], "access") == "store");
  CHECK(str_data(fs[1], "access") == "load");
}

TEST_CASE("coalesced, reversed, broadcast and grid-stride accesses are fine") {
  Function k = kernel("copy", {pointer_param("in", "float", 4), pointer_param("out", "float", 4), int_param("n")});
  global(k, AccessKind::Load, "in", gid(), 3);
  global(k, AccessKind::Store, "out", p("n") - gid() - 1, 4);
  global(k, AccessKind::Load, "in", bx(), 5);
  int l = loop(k, "i", lt(gid() + iter("i") * bdx() * gdx(), p("n")), "i < n", 6, 8, false);
  MemoryAccess& a = global(k, AccessKind::Load, "in", gid() + iter("i") * bdx() * gdx(), 7);
  a.loops = {l};
  a.guards = {{k.loops[0].condition, true}};
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  CHECK(with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal).empty());
}

TEST_CASE("a loop body is judged per iteration, by the lane stride") {
  // for (k = 0; k < K; ++k) sum += A[row * K + k] with row = gid: lanes K apart.
  Function k = kernel("rowdot", {pointer_param("A", "float", 4), int_param("K")});
  int l = loop(k, "k", lt(iter("k"), p("K")), "k < K", 3, 5);
  MemoryAccess& a = global(k, AccessKind::Load, "A", gid() * p("K") + iter("k"), 4, 4, "A[row * K + k]");
  a.loops = {l};
  // column per thread: A[k * K + col] is coalesced
  MemoryAccess& b = global(k, AccessKind::Load, "A", iter("k") * p("K") + gid(), 6, 4, "A[k * K + col]");
  b.loops = {l};
  KernelModel m = model_of({k}, {launch(k, 128, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 3);
  CHECK(int_data(fs[0], "sectors") == 32);
}

TEST_CASE("misalignment: one float off alone is 1.25x, a stencil line is judged as a whole") {
  Function k = kernel("stencil", {pointer_param("in", "float", 4), pointer_param("out", "float", 4)});
  global(k, AccessKind::Load, "in", gid() - 1, 3, 4, "in[i - 1]");
  // line 4: in[i - 1] + in[i] + in[i + 1]: 5 + 4 + 5 sectors for 12 ideal
  global(k, AccessKind::Load, "in", gid() - 1, 4, 4, "in[i - 1]", 10);
  global(k, AccessKind::Load, "in", gid(), 4, 4, "in[i]", 30);
  global(k, AccessKind::Load, "in", gid() + 1, 4, 4, "in[i + 1]", 50);
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 2);
  CHECK(int_data(fs[0], "sectors") == 5);
  CHECK(fs[0].message.find("misaligned") != std::string::npos);

  AnalysisOptions strict;
  strict.uncoalesced_threshold = 1.1;
  CHECK(with_code(run_static_analyses(m, strict), codes::kUncoalescedGlobal).size() == 3);
}

TEST_CASE("a guard that splits every warp halves the ideal") {
  Function k = kernel("evens", {pointer_param("a", "float", 4)});
  int cnd = condition(k, ConditionKind::If, eq(tx() % 2, c(0)), "threadIdx.x % 2 == 0", 3);
  MemoryAccess& a = global(k, AccessKind::Store, "a", gid(), 4);
  a.guards = {{cnd, true}};
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(int_data(fs[0], "sectors") == 4);
  CHECK(int_data(fs[0], "ideal") == 2);
  CHECK(int_data(fs[0], "active_lanes") == 16);
}

TEST_CASE("vector types use their real width") {
  Function k = kernel("vec", {pointer_param("in", "float4", 16), pointer_param("out", "float4", 16)});
  global(k, AccessKind::Load, "in", gid(), 3, 16);
  global(k, AccessKind::Store, "out", gid() * 2, 4, 16);
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(int_data(fs[0], "sectors") == 32);
  CHECK(int_data(fs[0], "ideal") == 16);
}

TEST_CASE("AoS member access through a byte offset") {
  // struct P { float x, y, z; } (12 bytes): p[i].y
  Function k = kernel("aos", {pointer_param("p", "P", 12)});
  MemoryAccess& a = global(k, AccessKind::Load, "p", gid(), 3, 4, "p[i].y");
  a.byte_offset = gid() * 12 + 4;
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(int_data(fs[0], "sectors") == 12);
  CHECK(fs[0].message.find("consecutive lanes are 12 bytes apart") != std::string::npos);
}

TEST_CASE("unknown block shape: warn when every plausible shape agrees, else information") {
  Function k = kernel("rows", {pointer_param("a", "float", 4), int_param("w")});
  // a[threadIdx.y * 20 + threadIdx.x]: misaligned rows only when blocks are 16 wide
  global(k, AccessKind::Load, "a", ty() * 20 + tx(), 3);
  // a[threadIdx.x * w + threadIdx.y]: uncoalesced whatever the shape
  global(k, AccessKind::Load, "a", tx() * p("w") + ty(), 4);
  KernelModel m = model_of({k});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].severity == Severity::Information);
  // It names the shapes it holds for and those it does not.
  INFO(fs[0].message);
  CHECK(fs[0].message.find("; only with the guessed block 16×16 (not 32×8 and 32×32)") != std::string::npos);
  CHECK(fs[1].severity == Severity::Warning);
  CHECK(str_data(fs[1], "block_source").find("the default block 16×16") == 0);

  // A launch with a 32-wide block makes the first one definite (and fine).
  KernelModel launched = model_of({k}, {launch(k, 32, 8, 20)});
  auto fl = with_code(run_static_analyses(launched, {}), codes::kUncoalescedGlobal);
  REQUIRE(fl.size() == 1);
  CHECK(fl[0].location.range.start.line == 3);
}

TEST_CASE("several launch shapes: the worst is reported and named") {
  Function k = kernel("rows", {pointer_param("a", "float", 4)});
  global(k, AccessKind::Load, "a", ty() * 20 + tx(), 3);
  KernelModel m = model_of({k}, {launch(k, 32, 8, 20), launch(k, 16, 16, 21)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Warning);
  CHECK(fs[0].message.find("worst with block 16×16") != std::string::npos);
}

TEST_CASE("a gather from per-lane loaded indices is information that the data decides, never a warning") {
  Function k = kernel("gather", {pointer_param("in", "float", 4), pointer_param("idx", "int", 4)});
  global(k, AccessKind::Load, "idx", gid(), 3, 4, "idx[i]");
  MemoryAccess& a = global(k, AccessKind::Load, "in", Expr::load("idx", gid()), 3, 4, "in[idx[i]]", 20);
  a.base_param = 0;
  KernelModel m = model_of({k}, {launch(k, 256, 1, 10)});
  auto all = run_static_analyses(m, {});
  // Reported under the code the hardware would count it under, not as an
  // indirect-access hint beside it.
  CHECK(with_code(all, codes::kIndirectAccess).empty());
  auto fs = with_code(all, codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Information);
  CHECK(fs[0].location.range.start.column == 20);
  CHECK(fs[0].message.find("data-dependent load of `in[idx[i]]` (address from `idx[…]`)") != std::string::npos);
  CHECK(fs[0].message.find("up to 32 sectors per request (ideal 4)") != std::string::npos);
  const EvidenceValue* dd = fs[0].data.get("data_dependent");
  REQUIRE(dd != nullptr);
  CHECK(std::get<bool>(*dd));
}

TEST_CASE("device functions are judged per calling kernel, reported once (the worst)") {
  // __device__ float at(const float* p, int i) { return p[i]; }   (line 2)
  Function at = kernel("at", {pointer_param("p", "float", 4), int_param("i")}, FunctionKind::Device);
  global(at, AccessKind::Load, "p", p("i"), 2, 4, "p[i]");
  Function good = kernel("good", {pointer_param("in", "float", 4)});
  CallSite cg;
  cg.callee = "at";
  cg.callee_key = "at()";
  cg.range = line_range(5);
  cg.args = {p("in"), gid()};
  good.calls.push_back(cg);
  Function bad = kernel("bad", {pointer_param("in", "float", 4), int_param("n")});
  CallSite cb = cg;
  cb.range = line_range(8);
  cb.args = {p("in") + gid() * p("n"), c(0)};  // at(in + i * n, 0)
  bad.calls.push_back(cb);

  KernelModel only_good = model_of({at, good}, {launch(good, 256, 1, 20)});
  CHECK(with_code(run_static_analyses(only_good, {}), codes::kUncoalescedGlobal).empty());

  KernelModel both = model_of({at, good, bad}, {launch(good, 256, 1, 20), launch(bad, 256, 1, 21)});
  auto fs = with_code(run_static_analyses(both, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 1);
  CHECK(fs[0].kernel == "bad()");
  CHECK(fs[0].message.find("in kernel `bad`, through the call to `at` at line 8") != std::string::npos);
}

TEST_CASE("template patterns are judged through their instantiations") {
  Function pattern = kernel("tcopy", {pointer_param("in", "T", 0)});
  pattern.is_template = true;
  global(pattern, AccessKind::Load, "in", gid() * 2, 3, 0);
  Function inst = kernel("tcopy", {pointer_param("in", "double", 8)});
  inst.key = "tcopy<double>()";
  inst.template_args = "<double>";
  global(inst, AccessKind::Load, "in", gid() * 2, 3, 8);
  KernelModel m = model_of({pattern, inst});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].kernel == "tcopy<double>()");
  CHECK(int_data(fs[0], "sectors") == 16);
}

TEST_CASE("alignment that moves between blocks or iterations is averaged, a fixed one is not") {
  Function k = kernel("align", {pointer_param("in", "float", 4), pointer_param("out", "float", 4),
                                int_param("nx"), int_param("W")});
  ExprRef x = bx() * bdx() + tx() + 1;
  ExprRef y = by() * bdy() + ty() + 1;
  // a halo-padded row pitch (nx + 2): the 4 rows of a block start at 4
  // different alignments (5, 5, 4, 5 sectors)
  global(k, AccessKind::Load, "in", y * (p("nx") + c(2)) + bx() * bdx() + tx(), 3, 4, "in[y * (nx + 2) + x0]");
  // ... but with the +1 column offset as well, every row starts at an odd float: 5 sectors each
  global(k, AccessKind::Load, "in", y * (p("nx") + c(2)) + x, 8, 4, "in[y * (nx + 2) + x]");
  // a loop offset: in[i + k] for k = 0..K
  int l = loop(k, "k", lt(iter("k"), c(7)), "k < 7", 4, 6);
  global(k, AccessKind::Load, "in", gid() + iter("k"), 5, 4, "in[i + k]").loops = {l};
  // a fixed misalignment on a power-of-two pitch
  global(k, AccessKind::Load, "in", y * p("W") + x, 7, 4, "in[y * W + x]");
  KernelModel m = model_of({k}, {launch(k, 32, 4, 20)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].location.range.start.line == 6);
  CHECK(int_data(fs[0], "sectors") == 5);
  CHECK(fs[1].location.range.start.line == 7);
}

TEST_CASE("a load indexed by a warp-uniform value is not indirect (CSR, warp per row)") {
  // start = row_ptr[gid / 32]; val[start + lane] is coalesced; x[col[j]] is a gather
  Function k = kernel("spmv_vector", {pointer_param("row_ptr", "int", 4), pointer_param("val", "float", 4),
                                      pointer_param("col", "int", 4), pointer_param("x", "float", 4)});
  ExprRef start = Expr::load("row_ptr", gid() / 32);
  ExprRef j = start + tx() % 32 + iter("jj") * 32;
  global(k, AccessKind::Load, "val", j, 3, 4, "val[jj]");
  global(k, AccessKind::Load, "x", Expr::load("col", j), 4, 4, "x[col[jj]]");
  // a per-lane start (CSR scalar): val[row_ptr[gid] + k] is indirect
  global(k, AccessKind::Load, "val", Expr::load("row_ptr", gid()) + iter("k"), 5, 4, "val[jj2]");
  KernelModel m = model_of({k}, {launch(k, 256, 1, 20)});
  auto all = run_static_analyses(m, {});
  // val[jj] is judged (coalesced: no finding); the two per-lane ones are
  // information that their addresses are data-dependent.
  CHECK(with_code(all, codes::kIndirectAccess).empty());
  auto fs = with_code(all, codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].location.range.start.line == 3);
  CHECK(fs[1].location.range.start.line == 4);
  for (const auto& f : fs) {
    CHECK(f.severity == Severity::Information);
    CHECK(f.message.find("data-dependent load") != std::string::npos);
  }
}

TEST_CASE("a struct wider than its alignment is several instructions") {
  // uchar3 rgb[i]: three 1-byte loads 3 bytes apart, 3 sectors each for 1
  Function k = kernel("gray", {pointer_param("rgb", "uchar3", 3), pointer_param("f3", "float3", 12)});
  MemoryAccess& a = global(k, AccessKind::Load, "rgb", gid(), 3, 3, "rgb[i]");
  a.element_align = 1;
  // float3 f3[i]: three 4-byte loads 12 bytes apart: 12 sectors each for 4
  MemoryAccess& b = global(k, AccessKind::Load, "f3", gid(), 4, 12, "f3[i]");
  b.element_align = 4;
  KernelModel m = model_of({k}, {launch(k, 256, 1, 20)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  CHECK(int_data(fs[0], "sectors") == 9);
  CHECK(int_data(fs[0], "ideal") == 3);
  CHECK(int_data(fs[1], "sectors") == 36);
  CHECK(int_data(fs[1], "ideal") == 12);
  CHECK(access_chunk_bytes(16, 16) == 16);
  CHECK(access_chunk_bytes(24, 4) == 4);
  CHECK(access_chunk_bytes(12, 0) == 4);
  CHECK(access_chunk_bytes(32, 16) == 16);
}

TEST_CASE("a ratio exactly at the threshold under an edge bounds check is not reported") {
  // if (x > 0 && x < W - 1) left = in[y * W + x - 1]: interior warps 5 for 4,
  // the edge warps less: the whole-run ratio ends just below 1.25.
  Function k = kernel("edge", {pointer_param("in", "float", 4), int_param("W")});
  ExprRef x = bx() * bdx() + tx();
  ExprRef y = by() * bdy() + ty();
  int cnd = condition(k, ConditionKind::If,
                      Expr::binary(ExprOp::LogicalAnd, gt(x, c(0)), lt(x, p("W") - 1)), "x > 0 && x < W - 1", 3);
  global(k, AccessKind::Load, "in", y * p("W") + x - 1, 4, 4, "in[y * W + x - 1]").guards = {{cnd, true}};
  // the same load under `x < W` (whole warps only) is reported
  int whole = condition(k, ConditionKind::If, lt(x, p("W")), "x < W", 5);
  global(k, AccessKind::Load, "in", y * p("W") + x - 1, 6, 4, "in[y * W + x - 1]").guards = {{whole, true}};
  KernelModel m = model_of({k}, {launch(k, 32, 8, 20)});
  auto fs = with_code(run_static_analyses(m, {}), codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 5);
}
