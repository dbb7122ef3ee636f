#include <doctest/doctest.h>

#include "analysis/index_expr.h"

using namespace warplens;

TEST_CASE("index expressions render with minimal parentheses") {
  auto gid = Expr::binary(ExprOp::Add, Expr::binary(ExprOp::Mul, Expr::block_idx(0), Expr::block_dim(0)),
                          Expr::thread_idx(0));
  auto e = Expr::binary(ExprOp::Mul, gid, Expr::param("n"));
  CHECK(to_string(e) == "(blockIdx.x * blockDim.x + threadIdx.x) * n");
  CHECK(to_string(Expr::binary(ExprOp::Sub, Expr::param("a"), Expr::binary(ExprOp::Sub, Expr::param("b"),
                                                                             Expr::param("c")))) ==
        "a - (b - c)");
}

TEST_CASE("lane variance and indirect loads") {
  auto tid = Expr::thread_idx(0);
  CHECK(is_lane_varying(tid));
  CHECK_FALSE(is_lane_varying(Expr::binary(ExprOp::Mul, Expr::block_idx(0), Expr::param("n"))));
  auto ind = Expr::load("idx", tid);
  CHECK(is_indirect(ind));
  CHECK(is_lane_varying(ind));
  CHECK_FALSE(is_indirect(Expr::load("idx", Expr::block_idx(0))));
}

TEST_CASE("evaluation follows C integer semantics") {
  auto env = [](const Symbol& s) -> std::optional<std::int64_t> {
    if (s.kind == SymbolKind::ThreadIdx) return 37;
    return std::nullopt;
  };
  auto tid = Expr::thread_idx(0);
  CHECK(evaluate(Expr::binary(ExprOp::Rem, tid, Expr::constant(32)), env) == 5);
  CHECK(evaluate(Expr::binary(ExprOp::Div, tid, Expr::constant(32)), env) == 1);
  CHECK(evaluate(Expr::binary(ExprOp::Shr, tid, Expr::constant(1)), env) == 18);
  CHECK(evaluate(Expr::binary(ExprOp::Div, tid, Expr::constant(0)), env) == std::nullopt);
  CHECK(evaluate(Expr::param("n"), env) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Div, Expr::constant(-7), Expr::constant(2)), env) == -3);
}

TEST_CASE("evaluation gives up on overflow instead of wrapping (UBSan found it under fuzz_analysis)") {
  const auto big = Expr::constant(INT64_MAX / 2 + 1);
  auto none = [](const Symbol&) -> std::optional<std::int64_t> { return std::nullopt; };
  CHECK(evaluate(Expr::binary(ExprOp::Mul, big, Expr::constant(4)), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Add, big, big), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Sub, Expr::constant(INT64_MIN), Expr::constant(1)), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Div, Expr::constant(INT64_MIN), Expr::constant(-1)), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Rem, Expr::constant(INT64_MIN), Expr::constant(-1)), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Shl, big, Expr::constant(2)), none) == std::nullopt);
  CHECK(evaluate(Expr::binary(ExprOp::Shl, Expr::constant(3), Expr::constant(4)), none) == 48);
  CHECK(evaluate(Expr::binary(ExprOp::Mul, Expr::constant(-3), Expr::constant(5)), none) == -15);
  // Polynomial coefficients wrap (defined) rather than overflow.
  auto p = to_polynomial(Expr::binary(ExprOp::Mul, Expr::binary(ExprOp::Mul, big, Expr::param("n")),
                                      Expr::constant(4)));
  CHECK(p.has_value());
}

TEST_CASE("polynomial view gives symbolic lane strides") {
  auto tid = Expr::thread_idx(0);
  auto e = Expr::binary(ExprOp::Add,
                        Expr::binary(ExprOp::Mul, Expr::binary(ExprOp::Add, Expr::block_idx(0), tid),
                                     Expr::param("cols")),
                        Expr::constant(4));
  auto p = to_polynomial(e);
  REQUIRE(p);
  auto c = p->coefficient_of(Symbol{SymbolKind::ThreadIdx, 0, "", false});
  REQUIRE(c);
  CHECK(c->to_string() == "cols");
  CHECK(p->constant_term() == 4);
  CHECK_FALSE(to_polynomial(Expr::binary(ExprOp::Rem, tid, Expr::constant(32))));
  auto sq = to_polynomial(Expr::binary(ExprOp::Mul, tid, tid));
  REQUIRE(sq);
  CHECK_FALSE(sq->coefficient_of(Symbol{SymbolKind::ThreadIdx, 0, "", false}));
}

TEST_CASE("polynomial view with atoms: sub-trees it cannot expand become the symbols the caller names") {
  // (row % n) * cols + threadIdx.x: the remainder is not a polynomial.
  auto tid = Expr::thread_idx(0);
  auto rem = Expr::binary(ExprOp::Rem, Expr::block_idx(1), Expr::param("n"));
  auto e = Expr::binary(ExprOp::Add, Expr::binary(ExprOp::Mul, rem, Expr::param("cols")), tid);
  CHECK_FALSE(to_polynomial(e));
  int asked = 0;
  auto p = to_polynomial(e, [&](const ExprRef& sub) -> std::optional<Symbol> {
    ++asked;
    return Symbol{SymbolKind::Local, 0, "#" + to_string(sub), false};
  });
  REQUIRE(p);
  CHECK(asked == 1);  // only the sub-tree that could not be expanded
  auto c = p->coefficient_of(Symbol{SymbolKind::ThreadIdx, 0, "", false});
  REQUIRE(c);
  CHECK(c->is_constant());
  CHECK(c->constant_term() == 1);
  // A refusing callback refuses the whole; a polynomial never asks.
  CHECK_FALSE(to_polynomial(e, [](const ExprRef&) { return std::optional<Symbol>{}; }));
  asked = 0;
  CHECK(to_polynomial(Expr::binary(ExprOp::Add, tid, Expr::param("k")), [&](const ExprRef&) {
    ++asked;
    return std::optional<Symbol>{};
  }));
  CHECK(asked == 0);
}
