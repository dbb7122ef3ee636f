// Walks one function body in source order and fills the control-flow part
// of a warplens::Function: memory accesses, conditions and the guards on
// every statement, loops (with induction variables), barriers and calls.
// Internal to analysis/clang/.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <functional>
#include <set>
#include <vector>

#include "analysis/clang/expr_lowering.h"
#include "analysis/kernel_model.h"

namespace warplens::clang_frontend {

class BodyWalker {
 public:
  using KeyOf = std::function<std::string(const clang::FunctionDecl*)>;

  BodyWalker(clang::ASTContext& ctx, const SourceMapper& map, const clang::FunctionDecl* fn, Function& out,
             KeyOf key_of);
  void run();

  // __shared__ variables the body declares or uses, in first-seen order.
  const std::vector<const clang::VarDecl*>& shared_vars() const { return shared_vars_; }
  // Those whose address escapes (pointer arithmetic, reinterpretation, passed on).
  const std::set<const clang::VarDecl*>& escaped_shared() const { return escaped_; }

 private:
  enum class Use { Value, Load, Store, LoadStore, Atomic, Address };

  // "Control leaves here when condition `condition` is `taken`" (-1: always).
  struct ExitPath {
    int condition = -1;
    bool taken = true;
    bool is_return = true;  // false: break/continue (consumed by the loop/switch)
    bool is_break = false;
  };
  using Exits = std::vector<ExitPath>;

  // Statements
  Exits walk(const clang::Stmt* s);
  Exits walk_compound(const clang::CompoundStmt* s);
  Exits walk_if(const clang::IfStmt* s);
  Exits walk_switch(const clang::SwitchStmt* s);
  Exits walk_loop(const clang::Stmt* loop, std::optional<int> unroll);
  void walk_decl(const clang::VarDecl* var);

  // Expressions
  void visit(const clang::Expr* e, Use use);
  void visit_lvalue_parts(const clang::Expr* e);
  void visit_pointer_operand(const clang::Expr* p);
  void visit_call(const clang::CallExpr* call);
  bool visit_accessor(const clang::CallExpr* call, Use use);
  // `inlined`: the callee is recorded as a call site, so its value-like
  // reference parameters' accesses are its own (see record_call_site).
  void visit_args(const clang::CallExpr* call, const clang::FunctionDecl* callee, unsigned first,
                  bool inlined = false);
  Use by_reference(clang::QualType param, const clang::Expr* arg);
  bool record_barrier(const clang::CallExpr* call);
  void record_access(const clang::Expr* lvalue, Use use);
  void record_pointer_access(const clang::Expr* pointer, AccessKind kind);
  void record_call_site(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  void record_arithmetic(const clang::BinaryOperator* bo);
  void record_math_call(const std::string& name, const clang::CallExpr* call);
  void apply_assignment(const clang::BinaryOperator* bo);
  void apply_increment(const clang::UnaryOperator* uo);
  void invalidate(const clang::VarDecl* var);
  void note_shared(const clang::VarDecl* var);
  void escape_if_shared(const Address& a);

  // Conditions
  int add_condition(ConditionKind kind, ExprRef expr, const clang::Expr* cond, const clang::Stmt* statement);
  int combine_exit(int outer, bool outer_taken, const ExitPath& inner, const clang::Stmt* where);
  Exits lift_exits(const Exits& inner, int condition, bool taken, const clang::Stmt* where);
  bool contains_effects(const clang::Expr* e) const;

  // Locals
  void merge_env(const Env& a, const Env& b, const ExprRef& cond);

  std::vector<Guard> guards() const { return guards_; }

  clang::ASTContext& ctx_;
  const SourceMapper& map_;
  const clang::FunctionDecl* fn_;
  Function& out_;
  KeyOf key_of_;
  Lowering lowering_;
  Env env_;
  std::vector<Guard> guards_;
  std::vector<int> loops_;
  std::vector<const clang::VarDecl*> shared_vars_;
  std::set<const clang::VarDecl*> escaped_;
  bool in_kernel_ = false;
};

}  // namespace warplens::clang_frontend
