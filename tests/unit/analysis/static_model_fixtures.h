// Hand-built kernel models for the static-analysis unit tests: a few
// operators to write index expressions the way CUDA code does, and builders
// for functions, accesses, conditions and launches. Lines are 1-based here
// (as an editor shows them) and stored 0-based in the model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/index_expr.h"
#include "analysis/kernel_model.h"

namespace warplens::fixtures {

inline ExprRef tx() { return Expr::thread_idx(0); }
inline ExprRef ty() { return Expr::thread_idx(1); }
inline ExprRef bx() { return Expr::block_idx(0); }
inline ExprRef by() { return Expr::block_idx(1); }
inline ExprRef bdx() { return Expr::block_dim(0); }
inline ExprRef bdy() { return Expr::block_dim(1); }
inline ExprRef gdx() { return Expr::grid_dim(0); }
inline ExprRef p(const std::string& name) { return Expr::param(name); }
inline ExprRef c(std::int64_t v) { return Expr::constant(v); }
inline ExprRef iter(const std::string& var) { return Expr::sym({SymbolKind::LoopCounter, 0, var, true}); }
inline ExprRef local(const std::string& name, bool uniform) {
  return Expr::sym({SymbolKind::Local, 0, name, uniform});
}

inline ExprRef operator+(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Add, a, b); }
inline ExprRef operator-(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Sub, a, b); }
inline ExprRef operator*(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Mul, a, b); }
inline ExprRef operator/(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Div, a, b); }
inline ExprRef operator%(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Rem, a, b); }
inline ExprRef operator+(ExprRef a, std::int64_t b) { return a + c(b); }
inline ExprRef operator-(ExprRef a, std::int64_t b) { return a - c(b); }
inline ExprRef operator*(ExprRef a, std::int64_t b) { return a * c(b); }
inline ExprRef operator*(std::int64_t a, ExprRef b) { return c(a) * b; }
inline ExprRef operator/(ExprRef a, std::int64_t b) { return a / c(b); }
inline ExprRef operator%(ExprRef a, std::int64_t b) { return a % c(b); }
inline ExprRef lt(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Lt, a, b); }
inline ExprRef ge(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Ge, a, b); }
inline ExprRef eq(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Eq, a, b); }
inline ExprRef gt(ExprRef a, ExprRef b) { return Expr::binary(ExprOp::Gt, a, b); }

// blockIdx.x * blockDim.x + threadIdx.x
inline ExprRef gid() { return bx() * bdx() + tx(); }

inline Range line_range(int line, int col = 4, int len = 10) {
  return {{line - 1, col}, {line - 1, col + len}};
}

inline Parameter pointer_param(const std::string& name, const std::string& pointee, int bytes) {
  Parameter prm;
  prm.name = name;
  prm.type = pointee + " *";
  prm.is_pointer = true;
  prm.pointee_type = pointee;
  prm.pointee_bytes = bytes;
  return prm;
}
inline Parameter int_param(const std::string& name) {
  Parameter prm;
  prm.name = name;
  prm.type = "int";
  return prm;
}

inline Function kernel(const std::string& name, std::vector<Parameter> params,
                       FunctionKind kind = FunctionKind::Kernel) {
  Function f;
  f.name = name;
  f.key = name + "()";
  f.kind = kind;
  f.params = std::move(params);
  return f;
}

inline int param_index(const Function& f, const std::string& name) {
  for (std::size_t i = 0; i < f.params.size(); ++i)
    if (f.params[i].name == name) return int(i);
  return -1;
}

// A global access `base[index]` of `bytes`-byte elements on `line`.
inline MemoryAccess& global(Function& f, AccessKind kind, const std::string& base, ExprRef index, int line,
                            int bytes = 4, std::string spelling = {}, int col = 4) {
  MemoryAccess a;
  a.space = MemorySpace::Global;
  a.kind = kind;
  a.base = base;
  a.spelling = spelling.empty() ? base + "[" + to_string(index) + "]" : spelling;
  a.range = line_range(line, col, int(a.spelling.size()));
  a.element_type = bytes == 4 ? "float" : bytes == 8 ? "double" : bytes == 16 ? "float4" : "char";
  a.element_bytes = bytes;
  a.index = index;
  a.base_param = param_index(f, base);
  f.accesses.push_back(a);
  return f.accesses.back();
}

inline SharedArray& shared_array(Function& f, const std::string& name, std::vector<std::int64_t> dims, int bytes = 4,
                                 std::string inner_spelling = {}, int line = 2) {
  SharedArray s;
  s.name = name;
  s.element_type = bytes == 4 ? "float" : bytes == 8 ? "double" : "float4";
  s.element_bytes = bytes;
  s.dims = dims;
  s.range = line_range(line);
  s.innermost_dim_spelling = inner_spelling.empty() ? std::to_string(dims.back()) : inner_spelling;
  s.innermost_dim_range = {{line - 1, 30}, {line - 1, 30 + int(s.innermost_dim_spelling.size())}};
  f.shared_arrays.push_back(s);
  return f.shared_arrays.back();
}

// A shared access `name[i][j]...`: the flattened index over the array's dims.
inline MemoryAccess& shared(Function& f, AccessKind kind, const std::string& name, std::vector<ExprRef> subscripts,
                            int line, int col = 4) {
  const SharedArray* arr = nullptr;
  for (const auto& s : f.shared_arrays)
    if (s.name == name) arr = &s;
  ExprRef flat = subscripts[0];
  std::string spelling = name + "[" + to_string(subscripts[0]) + "]";
  for (std::size_t k = 1; k < subscripts.size(); ++k) {
    flat = flat * arr->dims[k] + subscripts[k];
    spelling += "[" + to_string(subscripts[k]) + "]";
  }
  MemoryAccess a;
  a.space = MemorySpace::Shared;
  a.kind = kind;
  a.base = name;
  a.shared_array = name;
  a.spelling = spelling;
  a.range = line_range(line, col, int(spelling.size()));
  a.element_type = arr->element_type;
  a.element_bytes = arr->element_bytes;
  a.index = flat;
  f.accesses.push_back(a);
  return f.accesses.back();
}

inline int condition(Function& f, ConditionKind kind, ExprRef expr, const std::string& spelling, int line) {
  Condition cnd;
  cnd.kind = kind;
  cnd.expr = expr;
  cnd.spelling = spelling;
  cnd.range = line_range(line, 8, int(spelling.size()));
  cnd.statement_range = {{line - 1, 4}, {line - 1 + 2, 5}};
  f.conditions.push_back(cnd);
  return int(f.conditions.size()) - 1;
}

// A loop over `var` with the given exit condition; returns the loop id.
inline int loop(Function& f, const std::string& var, ExprRef exit_condition, const std::string& spelling, int line,
                int last_line, bool uniform_trip = true) {
  int cid = condition(f, ConditionKind::LoopExit, exit_condition, spelling, line);
  Loop l;
  l.induction_variable = var;
  l.bound = exit_condition;
  l.uniform_trip = uniform_trip;
  l.range = {{line - 1, 4}, {last_line - 1, 5}};
  l.condition = cid;
  f.loops.push_back(l);
  return int(f.loops.size()) - 1;
}

inline Barrier& barrier(Function& f, int line, BarrierKind kind = BarrierKind::SyncThreads) {
  Barrier b;
  b.kind = kind;
  b.spelling = kind == BarrierKind::SyncWarp ? "__syncwarp()" : "__syncthreads()";
  b.range = line_range(line, 4, int(b.spelling.size()));
  f.barriers.push_back(b);
  return f.barriers.back();
}

inline LaunchSite launch(const Function& k, std::int64_t x, std::int64_t y, int line,
                         std::vector<std::string> args = {}) {
  LaunchSite l;
  l.kernel = k.name;
  l.kernel_key = k.key;
  l.caller = "main";
  l.range = line_range(line);
  l.block.spelling = y == 1 ? std::to_string(x) : "dim3(" + std::to_string(x) + ", " + std::to_string(y) + ")";
  l.block.value = std::array<std::int64_t, 3>{x, y, 1};
  l.args = std::move(args);
  return l;
}

inline KernelModel model_of(std::vector<Function> fns, std::vector<LaunchSite> launches = {}) {
  KernelModel m;
  m.file = "/test/kernels.cu";
  m.functions = std::move(fns);
  m.launches = std::move(launches);
  return m;
}

// Copies: the findings outlive the analysis call.
inline std::vector<Finding> with_code(const std::vector<Finding>& fs, const std::string& code) {
  std::vector<Finding> out;
  for (const auto& f : fs)
    if (f.code == code) out.push_back(f);
  return out;
}

inline std::int64_t int_data(const Finding& f, const std::string& key) {
  const EvidenceValue* v = f.data.get(key);
  return v ? std::get<std::int64_t>(*v) : -1;
}

inline std::string str_data(const Finding& f, const std::string& key) {
  const EvidenceValue* v = f.data.get(key);
  return v ? std::get<std::string>(*v) : std::string("<missing>");
}

}  // namespace warplens::fixtures
