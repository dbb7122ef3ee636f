#include "analysis/work_estimate.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/device_call_inlining.h"

namespace warplens {

namespace {

// An unknown loop counts this many iterations when the intensity is taken
// as the loops grow: large enough that the innermost heavy body dominates.
constexpr double kLargeTrip = 1 << 20;

bool is_integer_literal(const std::string& s) {
  return !s.empty() && s.size() < 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<Polynomial> with_known(const ExprRef& e, const std::map<std::string, std::int64_t>& known) {
  ExprRef bound = substitute(e, [&](const Symbol& s) -> ExprRef {
    if (s.kind == SymbolKind::Param)
      if (auto it = known.find(s.name); it != known.end()) return Expr::constant(it->second);
    return nullptr;
  });
  return to_polynomial(bound);
}

}  // namespace

std::optional<std::int64_t> loop_trip_count(const Loop& loop, const std::map<std::string, std::int64_t>& known) {
  const ExprRef& cond = loop.bound;
  if (!cond || cond->operands.size() != 2) return std::nullopt;
  ExprOp op = cond->op;
  ExprRef l = cond->operands[0], r = cond->operands[1];
  if (op == ExprOp::Gt || op == ExprOp::Ge) {  // a > b is b < a
    std::swap(l, r);
    op = op == ExprOp::Gt ? ExprOp::Lt : ExprOp::Le;
  }
  if (op != ExprOp::Lt && op != ExprOp::Le && op != ExprOp::Ne) return std::nullopt;
  auto pl = with_known(l, known), pr = with_known(r, known);
  if (!pl || !pr) return std::nullopt;
  Polynomial p = *pl - *pr;  // the loop runs while p < 0 (p <= 0, p != 0)
  // p must be a * counter + b with constants a, b and one loop counter.
  std::optional<Symbol> counter;
  for (const auto& [m, c] : p.terms) {
    if (m.empty()) continue;
    if (m.size() != 1 || m[0].kind != SymbolKind::LoopCounter || (counter && !(*counter == m[0]))) return std::nullopt;
    counter = m[0];
  }
  if (!counter) return std::nullopt;
  auto a_poly = p.coefficient_of(*counter);
  if (!a_poly || !a_poly->is_constant()) return std::nullopt;
  const std::int64_t a = a_poly->constant_term();
  const std::int64_t b = p.constant_term();
  if (a == 0) return std::nullopt;
  std::int64_t trips = 0;
  if (op == ExprOp::Ne) {
    if ((-b) % a != 0 || (-b) / a < 0) return std::nullopt;
    trips = (-b) / a;
  } else if (a > 0) {
    // a*k + b < 0  <=>  k < -b/a; with <=, k <= -b/a.
    double limit = static_cast<double>(-b) / static_cast<double>(a);
    trips = op == ExprOp::Lt ? static_cast<std::int64_t>(std::ceil(limit)) : static_cast<std::int64_t>(std::floor(limit)) + 1;
  } else {
    return std::nullopt;  // a growing counter never leaves: not a counted loop
  }
  return std::max<std::int64_t>(trips, 0);
}

namespace {

struct Counter {
  const KernelModel& model;
  WorkEstimate& out;
  double flops_large = 0, bytes_large = 0;  // unknown loops at kLargeTrip
  double fp64_flops = 0, all_flops = 0;

  // Product of the trip counts of `loops` of `fn` (unknown ones: kLargeTrip, noted).
  double weight(const Function& fn, const std::vector<int>& loops, const std::map<std::string, std::int64_t>& known) {
    double w = 1;
    for (int id : loops) {
      if (id < 0 || id >= static_cast<int>(fn.loops.size())) continue;
      const Loop& loop = fn.loops[static_cast<std::size_t>(id)];
      if (auto t = loop_trip_count(loop, known)) {
        w *= static_cast<double>(*t);
      } else {
        w *= kLargeTrip;
        out.trips_known = false;
        std::string what = "line " + std::to_string(loop.range.start.line + 1) + ": `" +
                           (loop.bound ? to_string(loop.bound) : std::string("?")) + "`";
        if (std::find(out.unknown_loops.begin(), out.unknown_loops.end(), what) == out.unknown_loops.end())
          out.unknown_loops.push_back(what);
      }
    }
    return w;
  }

  const Function* callee(const CallSite& c) {
    for (const auto& f : model.functions)
      if (!c.callee_key.empty() ? f.key == c.callee_key : f.name == c.callee) return &f;
    return nullptr;
  }

  void flops(const Function& fn, double outer, const std::map<std::string, std::int64_t>& known, int depth) {
    for (const auto& site : fn.flops) {
      double n = outer * weight(fn, site.loops, known) * site.flops;
      flops_large += n;
      all_flops += n;
      if (site.fp64) fp64_flops += n;
    }
    if (depth >= 6) return;
    for (const auto& call : fn.calls)
      if (const Function* f = callee(call); f && f != &fn)
        flops(*f, outer * weight(fn, call.loops, known), {}, depth + 1);
  }
};

}  // namespace

WorkEstimate estimate_work(const KernelModel& model, const Function& kernel, const LaunchSite* launch) {
  WorkEstimate out;
  std::map<std::string, std::int64_t> known;
  if (launch)
    for (std::size_t i = 0; i < launch->args.size() && i < kernel.params.size(); ++i)
      if (is_integer_literal(launch->args[i])) known[kernel.params[i].name] = std::stoll(launch->args[i]);
  Counter c{model, out};
  // Bytes: the kernel's global accesses, device calls inlined.
  KernelView view = bind_kernel(model, kernel);
  for (const auto& a : view.accesses) {
    if (a.space != MemorySpace::Global || !a.access) continue;
    double w = 1;
    for (const auto& l : a.loops) w *= c.weight(*l.owner, {l.loop_id}, l.owner == &kernel ? known
                                                                                         : std::map<std::string, std::int64_t>{});
    c.bytes_large += w * a.access->element_bytes;
    out.modelled = true;
  }
  c.flops(kernel, 1, known, 0);
  out.fp64 = c.fp64_flops * 2 > c.all_flops;
  out.intensity = c.bytes_large > 0 ? c.flops_large / c.bytes_large : 0;
  if (out.trips_known) {
    out.flops_per_thread = c.flops_large;
    out.bytes_per_thread = c.bytes_large;
    if (launch && launch->grid.value && launch->block.value) {
      const auto& g = *launch->grid.value;
      const auto& b = *launch->block.value;
      out.threads = static_cast<double>(g[0] * g[1] * g[2]) * static_cast<double>(b[0] * b[1] * b[2]);
      out.flops_per_launch = *out.threads * out.flops_per_thread;
      out.bytes_per_launch = *out.threads * out.bytes_per_thread;
    }
  }
  return out;
}

}  // namespace warplens
