// Building index-expression IR with light constant folding, so the model
// reads `threadIdx.y * 33 + threadIdx.x` rather than
// `threadIdx.y * 132 / 4 + threadIdx.x * 1 + 0`. Plain C++; internal to the
// model builder.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include <functional>
#include <string>

#include "analysis/index_expr.h"

namespace warplens::clang_frontend {

inline std::optional<std::int64_t> const_value(const ExprRef& e) {
  if (e && e->op == ExprOp::Const) return e->value;
  return std::nullopt;
}

inline ExprRef ir_add(const ExprRef& a, const ExprRef& b) {
  if (!a || !b) return nullptr;
  auto ca = const_value(a), cb = const_value(b);
  if (ca && cb) return Expr::constant(*ca + *cb);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  if (cb && (a->op == ExprOp::Add || a->op == ExprOp::Sub)) {
    // (x + 1) - 1 -> x: merge trailing constants.
    if (auto k = const_value(a->operands[1])) {
      std::int64_t sum = (a->op == ExprOp::Add ? *k : -*k) + *cb;
      return ir_add(a->operands[0], Expr::constant(sum));
    }
  }
  if (cb && *cb < 0) return Expr::binary(ExprOp::Sub, a, Expr::constant(-*cb));
  return Expr::binary(ExprOp::Add, a, b);
}

inline ExprRef ir_sub(const ExprRef& a, const ExprRef& b) {
  if (!a || !b) return nullptr;
  auto ca = const_value(a), cb = const_value(b);
  if (ca && cb) return Expr::constant(*ca - *cb);
  if (cb) return ir_add(a, Expr::constant(-*cb));
  return Expr::binary(ExprOp::Sub, a, b);
}

inline ExprRef ir_mul(const ExprRef& a, const ExprRef& b) {
  if (!a || !b) return nullptr;
  auto ca = const_value(a), cb = const_value(b);
  if (ca && cb) return Expr::constant(*ca * *cb);
  if ((ca && *ca == 0) || (cb && *cb == 0)) return Expr::constant(0);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  // (x * 4) * 2 -> x * 8
  if (cb && a->op == ExprOp::Mul)
    if (auto inner = const_value(a->operands[1])) return ir_mul(a->operands[0], Expr::constant(*inner * *cb));
  return Expr::binary(ExprOp::Mul, a, b);
}

inline ExprRef ir_scale(const ExprRef& a, std::int64_t k) { return ir_mul(a, Expr::constant(k)); }

// a / k when it divides exactly term by term (used to turn byte offsets of
// mixed-width views into element indices); null otherwise.
inline ExprRef ir_divide_exact(const ExprRef& e, std::int64_t k) {
  if (!e || k == 0) return nullptr;
  if (k == 1) return e;
  if (auto c = const_value(e)) return *c % k == 0 ? Expr::constant(*c / k) : nullptr;
  switch (e->op) {
    case ExprOp::Add:
    case ExprOp::Sub: {
      auto a = ir_divide_exact(e->operands[0], k), b = ir_divide_exact(e->operands[1], k);
      if (!a || !b) return nullptr;
      return e->op == ExprOp::Add ? ir_add(a, b) : ir_sub(a, b);
    }
    case ExprOp::Mul: {
      if (auto a = ir_divide_exact(e->operands[0], k)) return ir_mul(a, e->operands[1]);
      if (auto b = ir_divide_exact(e->operands[1], k)) return ir_mul(e->operands[0], b);
      return nullptr;
    }
    case ExprOp::Neg: {
      auto a = ir_divide_exact(e->operands[0], k);
      return a ? Expr::unary(ExprOp::Neg, a) : nullptr;
    }
    default: return nullptr;
  }
}

inline ExprRef ir_and(const ExprRef& a, const ExprRef& b) {
  if (!a) return b;
  if (!b) return a;
  return Expr::binary(ExprOp::LogicalAnd, a, b);
}

inline ExprRef ir_not(const ExprRef& a) {
  if (!a) return nullptr;
  if (a->op == ExprOp::LogicalNot) return a->operands[0];
  return Expr::unary(ExprOp::LogicalNot, a);
}

// An Opaque leaf that keeps only the lane-variance of `e`.
inline ExprRef ir_opaque_like(std::string spelling, const ExprRef& e) {
  return Expr::opaque(std::move(spelling), !is_lane_varying(e));
}

// Values are shared subtrees, so `h = h * 31 + h` repeated in straight-line
// code builds a small DAG whose tree (what to_string and evaluate walk) is
// exponential. Above `limit` tree nodes a value becomes one Opaque leaf that
// keeps only its lane-variance (computed on the DAG, memoised).
inline ExprRef ir_bounded(const ExprRef& e, const std::string& spelling, std::size_t limit = 4096) {
  if (!e) return e;
  std::unordered_map<const Expr*, std::size_t> size;
  std::function<std::size_t(const Expr*)> tree_size = [&](const Expr* x) -> std::size_t {
    if (!x) return 1;
    if (auto it = size.find(x); it != size.end()) return it->second;
    std::size_t n = 1;
    for (const auto& o : x->operands) n = std::min(limit + 1, n + tree_size(o.get()));
    return size[x] = n;
  };
  if (tree_size(e.get()) <= limit) return e;
  std::unordered_map<const Expr*, bool> varying;
  std::function<bool(const Expr*)> varies = [&](const Expr* x) -> bool {
    if (!x) return true;
    if (auto it = varying.find(x); it != varying.end()) return it->second;
    bool v;
    switch (x->op) {
      case ExprOp::Const: v = false; break;
      case ExprOp::Sym: v = !x->symbol.uniform; break;
      case ExprOp::Opaque: v = !x->uniform; break;
      default: {
        v = false;
        if (x->op == ExprOp::Load || x->op == ExprOp::Call) {
          if (x->uniform) break;
        }
        for (const auto& o : x->operands)
          if (o && varies(o.get())) {
            v = true;
            break;
          }
      }
    }
    return varying[x] = v;
  };
  return Expr::opaque(spelling, !varies(e.get()));
}

}  // namespace warplens::clang_frontend
