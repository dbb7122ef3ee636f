// The scan loop of warp-per-row (row_scan.h): matching `HEAD; BEFORE;
// acc += e; AFTER;` and writing it 32 elements at a time.
//
// Why the rewrite computes what the loop computed: iteration k of the
// original adds e(k) to acc after BEFORE(k) and before AFTER(k), so BEFORE(k)
// reads acc0 + e(S) + ... + e(k-1) and AFTER(k) reads the same plus e(k). A
// chunk of 32 iterations gives lane j iteration base + j: its e is evaluated
// first (HEAD then e, under the lane's bound), the shuffle scan gives it
// e(base) + ... + e(base + j) (inclusive) and the same less its own term
// (exclusive, a shuffle up), and acc is the sum of every earlier chunk in
// every lane, so `acc + exclusive` and `acc + inclusive` are what BEFORE(k)
// and AFTER(k) read, up to the order of the additions. Evaluating e ahead of
// BEFORE is sound because BEFORE changes nothing e reads (no local, no array
// e reads is stored); evaluating iteration k+1's e before iteration k's
// stores is sound because row_loop() proved every store of the loop hits its
// own iteration's element, and reads of a stored array only that element.
// HEAD is pure, so evaluating it twice (once for e, once for the work) gives
// the same values: nothing between the two stores memory.
#include "agent/rewrites/row_scan.h"

#include <functional>
#include <map>
#include <set>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

namespace {

// Every variable `s` names.
std::set<const VarDecl*> named_variables(const Stmt* s) {
  std::set<const VarDecl*> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl())) out.insert(v);
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return out;
}

// Whether every mention of `acc` in `s` reads its value (no address taken,
// no reference bound to it): only then can it be replaced by a sum.
bool only_reads(const Stmt* s, const VarDecl* acc) {
  int mentions = 0, reads = 0;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == acc) ++mentions;
    if (const auto* c = dyn_cast<ImplicitCastExpr>(x); c && c->getCastKind() == CK_LValueToRValue)
      if (const auto* r = dyn_cast<DeclRefExpr>(c->getSubExpr()->IgnoreParens()); r && r->getDecl() == acc) ++reads;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return mentions == reads;
}

// The DeclRefExprs naming `acc` inside `s`, each mapped to `text`.
void replace_mentions(const Stmt* s, const VarDecl* acc, const std::string& text,
                      std::map<const Stmt*, std::string>& nodes) {
  if (!s) return;
  if (const auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == acc) nodes[r] = text;
  for (const Stmt* c : s->children()) replace_mentions(c, acc, text, nodes);
}

}  // namespace

std::optional<ScanLoop> match_scan(const KernelContext& ctx, const ForStmt* loop, const ForCounter& counter,
                                   const VarDecl* acc, std::string& why) {
  const std::string n = acc->getNameAsString();
  if (!counter.declared_in_header) {
    why = "the running sum `" + n + "`'s loop declares its counter before the loop";
    return std::nullopt;
  }
  const auto* body = dyn_cast<CompoundStmt>(loop->getBody());
  if (!body) {
    why.clear();  // a single statement is a reduction or nothing: no scan to explain
    return std::nullopt;
  }
  ScanLoop sc;
  const std::set<const VarDecl*> only_acc = {acc};
  enum { Head, Before, After } phase = Head;
  for (const Stmt* s : body->body()) {
    const Expr* value = nullptr;
    if (auto a = accumulator_update(s, only_acc, &value)) {
      if (sc.update) {
        why = "the running sum `" + n + "` is updated twice in its loop";
        return std::nullopt;
      }
      if (a->op != Combine::Add || refers_to(value, acc) || value->HasSideEffects(ctx.ctx(), true)) {
        why = "the running sum `" + n + "` is combined other than by adding a value that does not read it";
        return std::nullopt;
      }
      sc.update = s;
      sc.value = value;
      phase = After;
      continue;
    }
    if (modified_variables(s).count(acc) || !only_reads(s, acc)) {
      why = "the running sum `" + n + "` is changed, or its address taken, other than by `" + n + " += e`";
      return std::nullopt;
    }
    if (phase == Head && isa<DeclStmt>(s) && !refers_to(s, acc) && only_pure_declarations(ctx, {s})) {
      sc.head.push_back(s);
      continue;
    }
    if (phase == Head) phase = Before;
    (phase == Before ? sc.before : sc.after).push_back(s);
  }
  if (!sc.update) {
    why = "the running sum `" + n + "` is not updated by a statement of its own in the loop";
    return std::nullopt;
  }
  // e is evaluated ahead of BEFORE: it may read the counter, what was
  // declared before the loop and HEAD's locals, and nothing BEFORE changes.
  std::set<const VarDecl*> head_locals;
  for (const Stmt* s : sc.head)
    for (const Decl* d : cast<DeclStmt>(s)->decls())
      if (const auto* v = dyn_cast<VarDecl>(d)) head_locals.insert(v);
  const std::set<const VarDecl*> e_reads = named_variables(sc.value);
  for (const VarDecl* v : e_reads)
    if (declared_inside(body, v) && !head_locals.count(v)) {
      why = "the running sum adds `" + v->getNameAsString() + "`, which the loop computes after its declarations";
      return std::nullopt;
    }
  std::set<const ValueDecl*> e_roots;
  for (const Access& a : accesses_in(ctx, sc.value)) {
    if (!a.root) {
      why = "the running sum reads memory through an address not followed to a parameter";
      return std::nullopt;
    }
    e_roots.insert(a.root);
  }
  for (const Stmt* s : sc.before) {
    for (const VarDecl* v : modified_variables(s))
      if (e_reads.count(v)) {
        why = "a statement before `" + n + " += ...` changes `" + v->getNameAsString() + "`, which the sum reads";
        return std::nullopt;
      }
    for (const Access& a : accesses_in(ctx, s))
      if (a.write && (!a.root || e_roots.count(a.root))) {
        why = "a statement before `" + n + " += ...` stores into an array the sum reads";
        return std::nullopt;
      }
  }
  return sc;
}

std::optional<std::string> warp_scan_loop_text(const KernelContext& ctx, const RowLoop& l,
                                               const std::string& scan_helper, std::string& error) {
  const ScanLoop& sc = *l.scan;
  const VarDecl* acc = l.accumulators.front().var;
  const std::string a = acc->getNameAsString();
  const std::string T = acc->getType().getUnqualifiedType().getAsString();
  const std::string k = l.counter.var->getNameAsString();
  const std::string KT = l.counter.var->getType().getUnqualifiedType().getAsString();
  auto start = ctx.text(l.counter.init);
  auto end = loop_end_text(ctx, l);
  auto value = ctx.text(sc.value);
  if (!start || !end || !value) {
    error = "a scan loop's header or sum is not plain source text";
    return std::nullopt;
  }
  const std::string base = fresh_name(ctx.file, "base"), x = fresh_name(ctx.file, "x"),
                    incl = fresh_name(ctx.file, "inclusive"), excl = fresh_name(ctx.file, "exclusive");
  const std::string ind = ctx.indentation_at(l.loop->getBeginLoc());
  auto statements = [&](const std::vector<const Stmt*>& list, const std::string& sum,
                        const std::string& indent) -> std::optional<std::string> {
    std::string out;
    for (const Stmt* s : list) {
      std::map<const Stmt*, std::string> nodes;
      if (!sum.empty()) replace_mentions(s, acc, "(" + a + " + " + sum + ")", nodes);
      auto t = statement_text(ctx, s, nodes);
      if (!t) return std::nullopt;
      out += indent + *t + "\n";
    }
    return out;
  };
  const std::string in1 = ind + "  ", in2 = ind + "    ";
  auto head = statements(sc.head, "", in2);
  auto before = statements(sc.before, excl, in2);
  auto after = statements(sc.after, incl, in2);
  if (!head || !before || !after) {
    error = "a scan loop's statements cross a macro";
    return std::nullopt;
  }
  const std::string live = k + " < (" + *end + ")";
  std::string t = "// warplens (warp-per-row): the running sum `" + a +
                  "`, 32 elements at a time: a shuffle scan gives each lane its element's sum\n" + ind;
  t += "for (" + KT + " " + base + " = (" + *start + "); " + base + " < (" + *end + "); " + base + " += 32) {\n";
  t += in1 + "const " + KT + " " + k + " = " + base + " + static_cast<" + KT + ">(threadIdx.x % 32);\n";
  t += in1 + T + " " + x + " = " + T + "(0);\n";
  t += in1 + "if (" + live + ") {\n" + *head + in2 + x + " = " + *value + ";\n" + in1 + "}\n";
  t += in1 + "const " + T + " " + incl + " = " + scan_helper + "(" + x + ");\n";
  if (!sc.before.empty())
    t += in1 + T + " " + excl + " = __shfl_up_sync(0xffffffffu, " + incl + ", 1);\n" + in1 +
         "if (threadIdx.x % 32 == 0) " + excl + " = " + T + "(0);\n";
  t += in1 + "if (" + live + ") {\n" + *head + *before + *after + in1 + "}\n";
  t += in1 + a + " += __shfl_sync(0xffffffffu, " + incl + ", 31);\n" + ind + "}";
  return t;
}

std::string scan_helper_text(const std::string& name) {
  return "// Added by warplens (warp-per-row): a running sum over the 32 lanes of a warp: lane i receives\n"
         "// v(0) + ... + v(i) (Hillis-Steele: five shuffles up).\ntemplate <typename T>\n"
         "__device__ __forceinline__ T " + name + "(T v) {\n  const unsigned lane = threadIdx.x % 32;\n"
         "  for (int offset = 1; offset < 32; offset <<= 1) {\n    const T o = __shfl_up_sync(0xffffffffu, v, offset);\n"
         "    if (lane >= static_cast<unsigned>(offset)) v += o;\n  }\n  return v;\n}\n\n";
}

}  // namespace warplens::agent::rw
