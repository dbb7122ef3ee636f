// Producer -> consumer pairs over the host events (see fusion_candidates.h).
//
// Buffers that may hold the same address (`q = tmp`, `std::swap(a, b)`) are
// one memory for this analysis (an alias class); every event on any of them
// touches that memory. For a producer launch the search is:
//   1. the next event that touches the memory must be a launch that reads it
//      (the consumer), on the same stream; a host read or copy out first
//      means the host needs the value, an overwrite or free first means
//      nobody reads it; in a loop, a reader at the top of the loop body
//      reads the previous iteration's value (carried state: a doubt);
//   2. the index mapping must match (same offset, same launch shape) or the
//      producer must be element-wise;
//   3. nothing may read the memory after the consumer on any path (loop back
//      edges included): a second reader keeps it materialised;
//   4. everything else is checked and each failure becomes a doubt: loops
//      and branches, aliases and escapes, what happens in between, and
//      whether the memory's lifetime ends here.
#include "analysis/fusion_candidates.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

namespace warplens {

const KernelEffects* KernelEffectsCache::of(const Function* kernel) {
  if (!kernel) return nullptr;
  auto it = cache_.find(kernel);
  if (it == cache_.end()) it = cache_.emplace(kernel, kernel_effects(model_, *kernel)).first;
  return &it->second;
}

std::string normalized_stream(const std::string& spelling) {
  std::string s;
  for (char c : spelling)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  for (const char* d : {"0", "nullptr", "NULL", "cudaStreamLegacy", "(cudaStream_t)0", "cudaStream_t(0)",
                        "(cudaStream_t)nullptr", "static_cast<cudaStream_t>(0)", "0x0"})
    if (s == d) return "";
  return s;
}

namespace {

// What one event does to one memory (an alias class of buffers).
struct Touch {
  bool any = false;
  bool reads = false;          // a kernel load, a copy out, a host read
  bool writes = false;         // some of it is written
  bool full_write = false;     // all of it is overwritten
  bool dies = false;           // freed, out of scope, the variable re-pointed
  bool escapes = false;        // passed on, stored, aliased, address taken, unknown use
  bool kernel_unknown = false; // a kernel that may do anything with it
  bool offset = false;         // through a pointer into the middle of it
};

class Flow {
 public:
  Flow(const KernelModel& model, const HostFunction& host, KernelEffectsCache& cache)
      : model_(model), host_(host), cache_(cache) {
    // Alias classes (union-find).
    parent_.resize(host.buffers.size());
    std::iota(parent_.begin(), parent_.end(), 0);
    for (const HostEvent& e : host.events)
      if (e.kind == HostEventKind::Use && e.buffer.buffer >= 0 && e.other >= 0 &&
          (e.use == BufferUse::CopiedTo || e.use == BufferUse::Reassigned))
        unite(e.buffer.buffer, e.other);
    // Extent of every region in events.
    first_.assign(host.regions.size(), -1);
    last_.assign(host.regions.size(), -1);
    for (std::size_t i = 0; i < host.events.size(); ++i)
      for (int r = host.events[i].region; r >= 0; r = host.regions[std::size_t(r)].parent) {
        if (first_[std::size_t(r)] < 0) first_[std::size_t(r)] = int(i);
        last_[std::size_t(r)] = int(i);
      }
  }

  std::vector<FusionCandidate> run() {
    std::vector<FusionCandidate> out;
    for (std::size_t i = 0; i < host_.events.size(); ++i) {
      const HostEvent& e = host_.events[i];
      if (e.kind != HostEventKind::Launch) continue;
      std::set<int> seen;
      for (const BufferRef& arg : e.arguments)
        if (arg.buffer >= 0 && seen.insert(cls(arg.buffer)).second)
          if (auto c = candidate(int(i), arg.buffer)) out.push_back(std::move(*c));
    }
    return out;
  }

 private:
  // ------------------------------------------------------------ basics

  int cls(int b) { return parent_[std::size_t(b)] == b ? b : parent_[std::size_t(b)] = cls(parent_[std::size_t(b)]); }
  void unite(int a, int b) { parent_[std::size_t(cls(a))] = cls(b); }
  bool in(int buffer, int memory) { return buffer >= 0 && cls(buffer) == memory; }
  std::vector<int> members(int memory) {
    std::vector<int> out;
    for (std::size_t b = 0; b < host_.buffers.size(); ++b)
      if (cls(int(b)) == memory) out.push_back(int(b));
    return out;
  }

  const HostEvent& ev(int i) const { return host_.events[std::size_t(i)]; }
  const std::string& name(int buffer) const { return host_.buffers[std::size_t(buffer)].name; }
  static std::string line(const Range& r) { return "line " + std::to_string(r.start.line + 1); }

  const LaunchSite* site(const HostEvent& e) const {
    return e.launch >= 0 && std::size_t(e.launch) < model_.launches.size() ? &model_.launches[std::size_t(e.launch)]
                                                                            : nullptr;
  }
  const Function* kernel(const HostEvent& e) const {
    const LaunchSite* s = site(e);
    if (!s || s->kernel_key.empty()) return nullptr;
    const Function* k = model_.find(s->kernel_key);
    return k && k->kind == FunctionKind::Kernel ? k : nullptr;
  }
  const KernelEffects* effects(const HostEvent& e) { return cache_.of(kernel(e)); }

  bool region_within(int inner, int outer) const {
    for (int r = inner; r >= 0; r = host_.regions[std::size_t(r)].parent)
      if (r == outer) return true;
    return outer < 0;
  }

  Touch touch(int i, int memory) {
    const HostEvent& e = ev(i);
    Touch t;
    switch (e.kind) {
      case HostEventKind::Launch: {
        const KernelEffects* fx = effects(e);
        for (std::size_t k = 0; k < e.arguments.size(); ++k) {
          if (!in(e.arguments[k].buffer, memory)) continue;
          t.any = true;
          t.offset |= e.arguments[k].offset;
          if (!fx || k >= fx->params.size()) {
            t.reads = t.writes = t.kernel_unknown = true;
            continue;
          }
          const ParameterEffect& p = fx->params[k];
          t.reads |= p.read || p.atomic || p.unknown;
          t.writes |= p.written || p.atomic || p.unknown;
          t.kernel_unknown |= p.unknown;
        }
        return t;
      }
      case HostEventKind::Copy:
        if (in(e.source.buffer, memory)) t.any = t.reads = true, t.offset |= e.source.offset;
        if (in(e.destination.buffer, memory)) {
          t.any = t.writes = true;
          t.offset |= e.destination.offset;
          t.full_write = !e.destination.offset && covers_allocation(e, e.destination.buffer);
        }
        return t;
      case HostEventKind::Set:
        if (in(e.buffer.buffer, memory)) {
          t.any = t.writes = true;
          t.offset = e.buffer.offset;
          t.full_write = !e.buffer.offset && covers_allocation(e, e.buffer.buffer);
        }
        return t;
      case HostEventKind::Free:
        if (in(e.buffer.buffer, memory)) t.any = t.dies = true;
        return t;
      case HostEventKind::ScopeEnd:
      case HostEventKind::Allocate:
        // The variable stops naming the memory; the memory itself is gone
        // only if nothing else holds it.
        if (in(e.buffer.buffer, memory)) t.any = true, t.dies = owned(e.buffer.buffer, i);
        return t;
      case HostEventKind::Use:
        if (!in(e.buffer.buffer, memory)) return t;
        t.any = true;
        switch (e.use) {
          case BufferUse::HostRead: t.reads = true; break;
          case BufferUse::HostWrite: t.writes = true; break;
          case BufferUse::Reassigned:
            if (e.other >= 0) t.escapes = true;
            else t.dies = owned(e.buffer.buffer, i);
            break;
          case BufferUse::Advanced: t.escapes = members(memory).size() > 1; break;
          default: t.escapes = true; break;
        }
        return t;
      case HostEventKind::Synchronize: return t;
    }
    return t;
  }

  // The allocation the memory of `buffer` comes from at event `at`.
  int allocation_before(int buffer, int at) const {
    for (int i = at - 1; i >= 0; --i)
      if (ev(i).kind == HostEventKind::Allocate && ev(i).buffer.buffer == buffer) return i;
    return -1;
  }

  bool covers_allocation(const HostEvent& e, int buffer) const {
    int a = allocation_before(buffer, int(&e - host_.events.data()));
    if (a < 0) return false;
    const ByteCount& have = ev(a).bytes;
    if (have.value && e.bytes.value) return *e.bytes.value >= *have.value;
    return !have.spelling.empty() && have.spelling == e.bytes.spelling;
  }

  // This function owns the memory: a local variable, allocated here with
  // the CUDA runtime, never shared with another variable.
  bool owned(int buffer, int at) {
    const HostBuffer& b = host_.buffers[std::size_t(buffer)];
    if (b.storage != BufferStorage::Local || members(cls(buffer)).size() > 1) return false;
    int a = allocation_before(buffer, at);
    if (a < 0) return false;
    AllocationKind k = ev(a).allocation;
    return k != AllocationKind::Returned && k != AllocationKind::MallocHost;
  }

  // ------------------------------------------------------------ offsets

  ExprRef bind(const ExprRef& offset, const Function& k, const LaunchSite& l) const {
    if (!offset) return nullptr;
    return substitute(offset, [&](const Symbol& s) -> ExprRef {
      if (s.kind != SymbolKind::Param) return nullptr;
      for (std::size_t i = 0; i < k.params.size() && i < l.args.size(); ++i)
        if (k.params[i].name == s.name) {
          const std::string& a = l.args[i];
          if (!a.empty() && std::all_of(a.begin(), a.end(), [](char c) { return std::isdigit((unsigned char)c); }) &&
              a.size() < 18)
            return Expr::constant(std::stoll(a));
          return Expr::sym(Symbol{SymbolKind::Local, 0, "(" + a + ")", true});
        }
      return Expr::sym(Symbol{SymbolKind::Local, 0, k.name + "::" + s.name, true});
    });
  }

  static bool same_offset(const ExprRef& a, const ExprRef& b) {
    if (!a || !b) return false;
    auto pa = to_polynomial(a), pb = to_polynomial(b);
    if (pa && pb) return pa->terms == pb->terms;
    return to_string(a) == to_string(b);
  }

  static bool same_shape(const LaunchSite& a, const LaunchSite& b) {
    auto same = [](const Dim3Value& x, const Dim3Value& y) {
      if (x.value && y.value) return *x.value == *y.value;
      return !x.spelling.empty() && x.spelling == y.spelling;
    };
    return same(a.grid, b.grid) && same(a.block, b.block);
  }

  // ------------------------------------------------------------ the search

  std::optional<FusionCandidate> candidate(int ia, int buffer) {
    const int memory = cls(buffer);
    const HostEvent& a = ev(ia);
    const KernelEffects* afx = effects(a);
    const LaunchSite* asite = site(a);
    if (!afx || !asite) return std::nullopt;
    // The producer: writes the memory through exactly one parameter, whole
    // pointer, plain stores, and does not read it.
    int pa = -1;
    for (std::size_t k = 0; k < a.arguments.size(); ++k)
      if (in(a.arguments[k].buffer, memory)) {
        if (pa >= 0 || a.arguments[k].offset) return std::nullopt;
        pa = int(k);
      }
    if (pa < 0 || std::size_t(pa) >= afx->params.size()) return std::nullopt;
    const ParameterEffect& pe = afx->params[std::size_t(pa)];
    if (pe.unknown || !pe.written || pe.atomic || pe.read) return std::nullopt;
    const ParameterAccess* write = nullptr;
    for (const auto& acc : pe.accesses) {
      if (acc.kind != AccessKind::Store) continue;
      if (!write) write = &acc;
      else if (!same_offset(bind(acc.byte_offset, *afx->kernel, *asite), bind(write->byte_offset, *afx->kernel, *asite)))
        return std::nullopt;  // stores at several offsets: neither element for element nor element-wise
    }
    if (!write) return std::nullopt;

    FusionCandidate c;
    c.host = &host_;
    c.buffer = buffer;
    for (int m : members(memory))
      if (m != buffer) c.aliases.push_back(m);
    c.producer = ia;
    c.producer_kernel = afx->kernel;
    c.producer_param = pa;
    c.write = write;
    c.allocation = allocation_before(buffer, ia);

    // 1. The consumer: the first event after the producer that touches the
    // memory. Inside loops the scan stops at the end of the innermost loop
    // around the producer and first follows the back edge (a reader at the
    // top of the loop reads the previous iteration's value: carried state),
    // then continues after the loop.
    std::vector<int> loops;
    for (int r = a.region; r >= 0; r = host_.regions[std::size_t(r)].parent)
      if (host_.regions[std::size_t(r)].kind == HostRegionKind::Loop) loops.push_back(r);
    int ib = -1;
    bool carried = false;
    int j = ia + 1;
    for (std::size_t li = 0; ib < 0; ++li) {
      const int limit = li < loops.size() ? last_[std::size_t(loops[li])] + 1 : int(host_.events.size());
      for (; j < limit && ib < 0; ++j) {
        Touch t = touch(j, memory);
        if (!t.any) continue;
        if (ev(j).kind == HostEventKind::Launch && t.reads) ib = j;
        else if (t.reads || t.writes || t.dies) return std::nullopt;  // needed by the host, or never read
        else if (t.escapes) doubt(c, escape_text(j), ev(j).range);
      }
      if (ib >= 0 || li >= loops.size()) break;
      for (int k = first_[std::size_t(loops[li])]; k < ia; ++k) {
        Touch t = touch(k, memory);
        if (!t.any) continue;
        if (ev(k).kind == HostEventKind::Launch && t.reads) ib = k, carried = true;
        break;  // whatever comes first decides what the next iteration sees
      }
    }
    if (ib < 0) return std::nullopt;
    const HostEvent& b = ev(ib);
    const KernelEffects* bfx = effects(b);
    const LaunchSite* bsite = site(b);
    if (!bfx || !bsite) return std::nullopt;
    c.consumer = ib;
    c.consumer_kernel = bfx->kernel;

    // 2. How the consumer reads it.
    std::vector<const ParameterAccess*> reads;
    bool consumer_writes = false;
    for (std::size_t k = 0; k < b.arguments.size() && k < bfx->params.size(); ++k) {
      if (!in(b.arguments[k].buffer, memory)) continue;
      const ParameterEffect& e = bfx->params[k];
      if (e.unknown || e.atomic) return std::nullopt;
      if (b.arguments[k].offset)
        doubt(c, "`" + b.spelling + "` reads `" + name(b.arguments[k].buffer) + "` from an offset", b.range);
      if (c.consumer_param < 0 && e.read) c.consumer_param = int(k);
      consumer_writes |= e.written;
      for (const auto& acc : e.accesses)
        if (acc.kind == AccessKind::Load) reads.push_back(&acc);
    }
    if (reads.empty()) return std::nullopt;
    c.read = reads.front();
    std::vector<ExprRef> distinct;
    bool reads_known = true;
    for (const ParameterAccess* r : reads) {
      ExprRef bound = bind(r->byte_offset, *bfx->kernel, *bsite);
      if (!bound || r->indirect) reads_known = false;
      if (std::none_of(distinct.begin(), distinct.end(), [&](const ExprRef& d) { return same_offset(d, bound); }))
        distinct.push_back(bound);
    }
    c.distinct_reads = int(distinct.size());
    ExprRef written = bind(write->byte_offset, *afx->kernel, *asite);
    bool same_index = reads_known && distinct.size() == 1 && same_offset(written, distinct[0]) &&
                      same_shape(*asite, *bsite);
    bool producer_only_writes_this = true;
    for (std::size_t k = 0; k < afx->params.size(); ++k)
      if (int(k) != pa && (afx->params[k].written || afx->params[k].atomic)) producer_only_writes_this = false;
    bool widths_match = std::all_of(reads.begin(), reads.end(), [&](const ParameterAccess* r) {
      return r->element_bytes == write->element_bytes;
    });
    if (same_index) {
      c.mapping = FusionMapping::SameIndex;
    } else if (afx->elementwise && producer_only_writes_this && widths_match && !consumer_writes) {
      c.mapping = FusionMapping::ElementwiseProducer;
      if (c.distinct_reads > 1)
        doubt(c, "`" + b.spelling + "` reads " + std::to_string(c.distinct_reads) +
                     " different elements of it per thread: a fused kernel recomputes `" + a.spelling +
                     "` for each");
    } else {
      return std::nullopt;  // neither element for element nor recomputable
    }

    // 3. Everything that could make the fused kernel differ.
    if (carried)
      doubt(c, "`" + b.spelling + "` runs before `" + a.spelling +
                   "` in the loop: it reads the value written in the previous iteration",
            b.range);
    // Different streams: the two launches may overlap or run in either order
    // unless events order them, and one fused launch cannot be on both. Not
    // a candidate (issue 9 asks for launches on the same stream).
    if (normalized_stream(a.stream) != normalized_stream(b.stream)) return std::nullopt;
    if (!carried && a.region != b.region) doubt(c, region_text(a, b));
    for (int m : c.aliases)
      doubt(c, "`" + name(m) + "` may hold the same address as `" + name(buffer) + "`",
            host_.buffers[std::size_t(m)].declaration.empty() ? std::optional<Range>{}
                                                                 : host_.buffers[std::size_t(m)].declaration);
    for (int j = 0; j < ia; ++j)
      if (Touch t = touch(j, memory); t.escapes) doubt(c, escape_text(j), ev(j).range);
    if (!carried) in_between(c, ia, ib, memory);
    races(c, a, *afx, *asite, b, *bfx, *bsite);
    if (!after(c, ia, ib, memory)) return std::nullopt;
    return c;
  }

  // Events between the launches: the fused kernel runs where the consumer
  // did, so nothing in between may change the producer's inputs or use its
  // other outputs.
  void in_between(FusionCandidate& c, int ia, int ib, int memory) {
    const HostEvent& a = ev(ia);
    const KernelEffects* afx = effects(a);
    std::set<int> inputs, outputs;
    for (std::size_t k = 0; k < a.arguments.size() && k < afx->params.size(); ++k) {
      int m = a.arguments[k].buffer;
      if (m < 0 || in(m, memory)) continue;
      const ParameterEffect& p = afx->params[k];
      if (p.read || p.unknown) inputs.insert(cls(m));
      if (p.written || p.atomic) outputs.insert(cls(m));
    }
    for (int j = ia + 1; j < ib; ++j) {
      for (int m : inputs) {
        Touch t = touch(j, m);
        if (t.writes || t.escapes || t.dies)
          doubt(c, what(j) + " " + (t.escapes ? "uses" : "changes") + " `" + name(m) + "`, which `" + a.spelling +
                       "` reads, between the two launches",
                ev(j).range);
      }
      for (int m : outputs) {
        Touch t = touch(j, m);
        if (t.any)
          doubt(c, what(j) + " uses `" + name(m) + "`, which `" + a.spelling + "` also writes, between the launches",
                ev(j).range);
      }
    }
  }

  // In one fused kernel, a thread that writes what another thread's copy of
  // the producer still has to read is a race.
  void races(FusionCandidate& c, const HostEvent& a, const KernelEffects& afx, const LaunchSite& asite,
             const HostEvent& b, const KernelEffects& bfx, const LaunchSite& bsite) {
    for (std::size_t q = 0; q < b.arguments.size() && q < bfx.params.size(); ++q) {
      const ParameterEffect& bq = bfx.params[q];
      int m = b.arguments[q].buffer;
      if (m < 0 || !(bq.written || bq.atomic)) continue;
      for (std::size_t k = 0; k < a.arguments.size() && k < afx.params.size(); ++k) {
        if (!in(a.arguments[k].buffer, cls(m)) || k == std::size_t(c.producer_param)) continue;
        const ParameterEffect& ak = afx.params[k];
        if (!ak.read && !ak.unknown) continue;
        bool safe = !ak.unknown && !bq.atomic && !bq.unknown && !b.arguments[q].offset && !a.arguments[k].offset;
        for (const auto& r : ak.accesses)
          for (const auto& w : bq.accesses)
            if (w.kind == AccessKind::Store &&
                !same_offset(bind(r.byte_offset, *afx.kernel, asite), bind(w.byte_offset, *bfx.kernel, bsite)))
              safe = false;
        if (!safe)
          doubt(c, "`" + b.spelling + "` writes `" + name(m) + "`, which `" + a.spelling +
                       "` reads at other elements: in one fused kernel that would race");
      }
    }
  }

  // After the consumer: every path must reach the memory's end (free, full
  // overwrite, out of scope) before anything reads it. Returns false when
  // something (the host, another kernel) reads the value again.
  bool after(FusionCandidate& c, int ia, int ib, int memory) {
    const HostEvent& a = ev(ia);
    const LaunchSite* asite = site(a);
    std::vector<int> back;  // loops around the consumer: their last event jumps to their first
    for (int r = ev(ib).region; r >= 0; r = host_.regions[std::size_t(r)].parent)
      if (host_.regions[std::size_t(r)].kind == HostRegionKind::Loop) back.push_back(r);
    std::set<int> visited;
    std::vector<int> work{ib + 1};
    bool reaches_end = false;
    while (!work.empty()) {
      int j = work.back();
      work.pop_back();
      if (j >= int(host_.events.size())) {
        reaches_end = true;
        continue;
      }
      if (!visited.insert(j).second) continue;
      auto next = [&] {
        work.push_back(j + 1);
        for (int r : back)
          if (last_[std::size_t(r)] == j) work.push_back(first_[std::size_t(r)]);
      };
      Touch t = touch(j, memory);
      if (!t.any) {
        next();
        continue;
      }
      const HostEvent& e = ev(j);
      bool unconditional = region_within(ev(ib).region, e.region);
      bool is_launch = e.kind == HostEventKind::Launch;
      if (j == ia) continue;  // the producer writes it again: dead until then
      // Another kernel or the host reads the value: it has to be
      // materialised anyway (a second reader, a reduction over it, a copy
      // back), so fusing saves nothing that the warning could promise.
      if (t.reads) return false;
      if (t.escapes) doubt(c, escape_text(j), e.range);
      bool kill = t.dies || t.full_write;
      if (is_launch && t.writes && !t.reads && !t.offset && !t.kernel_unknown && asite && site(e) &&
          same_shape(*asite, *site(e)) && overwrites_like_producer(c, e))
        kill = true;
      if (kill && unconditional) {
        if (c.death < 0) c.death = j;
        continue;
      }
      bool forgotten = e.kind == HostEventKind::ScopeEnd || e.kind == HostEventKind::Allocate ||
                       (e.kind == HostEventKind::Use && e.use == BufferUse::Reassigned && e.other < 0);
      if (forgotten && !t.dies) {
        // The variable lets go of memory this function does not own.
        doubt(c, lifetime_text(c.buffer), e.range);
        if (c.death < 0) c.death = j;
      }
      if (e.kind == HostEventKind::ScopeEnd && unconditional) continue;
      next();
    }
    if (reaches_end) {
      const HostBuffer& hb = host_.buffers[std::size_t(c.buffer)];
      if (hb.storage != BufferStorage::Local) doubt(c, lifetime_text(c.buffer));
    }
    return true;
  }

  // A later launch that writes the memory at the producer's offsets
  // overwrites everything the consumer read.
  bool overwrites_like_producer(const FusionCandidate& c, const HostEvent& e) {
    const KernelEffects* fx = effects(e);
    const LaunchSite* s = site(e);
    if (!fx || !s || !c.write) return false;
    ExprRef w = bind(c.write->byte_offset, *c.producer_kernel, *site(ev(c.producer)));
    bool found = false;
    for (std::size_t k = 0; k < e.arguments.size() && k < fx->params.size(); ++k) {
      if (!in(e.arguments[k].buffer, cls(c.buffer))) continue;
      for (const auto& acc : fx->params[k].accesses) {
        if (acc.kind != AccessKind::Store || !same_offset(w, bind(acc.byte_offset, *fx->kernel, *s))) return false;
        found = true;
      }
    }
    return found;
  }

  // ------------------------------------------------------------ words

  void doubt(FusionCandidate& c, std::string text, std::optional<Range> where = std::nullopt) {
    for (const auto& d : c.doubts)
      if (d.text == text) return;
    c.doubts.push_back({std::move(text), where});
  }

  std::string what(int j) const {
    const HostEvent& e = ev(j);
    if (e.kind == HostEventKind::Launch) return "`" + e.spelling + "` (" + line(e.range) + ")";
    return "`" + e.spelling + "` at " + line(e.range);
  }

  std::string escape_text(int j) const {
    const HostEvent& e = ev(j);
    std::string n = e.buffer.buffer >= 0 ? name(e.buffer.buffer) : "the buffer";
    std::string at = " (" + line(e.range) + ")";
    switch (e.use) {
      case BufferUse::Passed: return "`" + n + "` is passed to a function the analysis does not follow" + at;
      case BufferUse::AddressTaken: return "the address of `" + n + "` is taken" + at;
      case BufferUse::CopiedTo: return "`" + n + "` is copied to another pointer" + at;
      case BufferUse::Stored: return "`" + n + "` is stored or captured" + at;
      case BufferUse::Returned: return "`" + n + "` is returned" + at;
      case BufferUse::Reassigned: return "`" + n + "` is assigned from another buffer" + at;
      case BufferUse::Advanced: return "`" + n + "` is moved while another pointer holds it" + at;
      default: return "`" + n + "` is used in a way the analysis does not follow (`" + e.spelling + "`)" + at;
    }
  }

  std::string lifetime_text(int buffer) const {
    const HostBuffer& b = host_.buffers[std::size_t(buffer)];
    std::string n = "`" + b.name + "`";
    switch (b.storage) {
      case BufferStorage::Parameter:
        return n + " is a parameter of `" + host_.name + "`: the caller may read it afterwards";
      case BufferStorage::Member: return n + " is a data member: other member functions may read it";
      case BufferStorage::Global: return n + " is a global: other functions may read it";
      case BufferStorage::Expression: return n + " is not a variable of `" + host_.name + "`: its other uses are unknown";
      case BufferStorage::Local: break;
    }
    return n + " is not allocated and freed here: whoever provided it may still read it";
  }

  std::string region_text(const HostEvent& a, const HostEvent& b) const {
    auto loops = [&](int r) {
      int n = 0;
      for (; r >= 0; r = host_.regions[std::size_t(r)].parent) n += host_.regions[std::size_t(r)].kind == HostRegionKind::Loop;
      return n;
    };
    if (loops(a.region) != loops(b.region))
      return "`" + a.spelling + "` and `" + b.spelling + "` run in different loops: they do not run once each per call";
    return "`" + a.spelling + "` and `" + b.spelling + "` are in different branches: one may run without the other";
  }

  const KernelModel& model_;
  const HostFunction& host_;
  KernelEffectsCache& cache_;
  std::vector<int> parent_;
  std::vector<int> first_, last_;
};

}  // namespace

std::vector<FusionCandidate> find_fusion_candidates(const KernelModel& model, const HostFunction& host,
                                                    KernelEffectsCache& effects) {
  return Flow(model, host, effects).run();
}

}  // namespace warplens
