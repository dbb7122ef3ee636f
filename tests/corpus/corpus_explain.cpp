// Development aid (not a test): prints what the analyzer sees in a .cu file:
// per function its accesses (with index expressions), conditions, loops,
// barriers and calls, the launches, the host functions' buffers and events
// (what the fusion analysis follows), then the static findings (with their hover text when
// --hover is given). Usage: corpus_explain [--hover] FILE...
// With --tsv, only the findings, one tab-separated row each:
// file line(1-based) code severity source access message
// (bench/public_corpus/check_corpus.py --explain reads them).
// With --reach, what a line-by-line comparison with a profile needs to tell a
// source line from a line-table artefact, one tab-separated row each:
//   access <file> <line> <space> <kind> <function>   every modelled access
//   reach <kernel> <file> <first> <last>             the lines of each function
//                                                    a kernel calls (itself too)
// (check_corpus.py --reach-tsv collects them; bench/public_corpus/compare.py
// --reach pools the profile rows the compiler put at lines without such an
// access into their kernel).
// --max-time-s N: the analysis time limit (AnalysisLimits::max_time, wall
// clock, default 30 s), which a loaded machine reaches in the parse alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "analysis/analyzer.h"

using namespace warplens;

namespace {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

void print_tsv(const std::string& path, const AnalysisResult& r) {
  for (const auto& f : r.findings) {
    std::string access;
    if (const EvidenceValue* v = f.data.get("access"))
      if (const auto* s = std::get_if<std::string>(v)) access = *s;
    std::printf("%s\t%d\t%s\t%s\t%s\t%s\t%s\n", one_line(f.location.file.empty() ? path : f.location.file).c_str(),
                f.location.range.start.line + 1, one_line(f.code).c_str(), to_string(f.severity),
                one_line(f.source).c_str(), one_line(access).c_str(), one_line(f.message).c_str());
  }
}

// The functions a kernel reaches through the model's call sites (by key),
// itself included.
void print_reach(const std::string& path, const AnalysisResult& r) {
  const auto& fns = r.model.functions;
  auto file_of = [&](const Function& f) { return one_line(f.file.empty() ? path : f.file); };
  for (const auto& f : fns)
    for (const auto& a : f.accesses)
      std::printf("access\t%s\t%d\t%s\t%s\t%s\n", file_of(f).c_str(), a.range.start.line + 1, to_string(a.space),
                  to_string(a.kind), one_line(f.name).c_str());
  for (const auto& k : fns) {
    if (k.kind != FunctionKind::Kernel) continue;
    std::vector<const Function*> todo{&k}, seen;
    while (!todo.empty()) {
      const Function* f = todo.back();
      todo.pop_back();
      if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
      seen.push_back(f);
      for (const auto& c : f->calls)
        for (const auto& g : fns)
          if (g.key == c.callee_key) todo.push_back(&g);
    }
    for (const Function* f : seen)
      std::printf("reach\t%s\t%s\t%d\t%d\n", one_line(k.name).c_str(), file_of(*f).c_str(),
                  f->range.start.line + 1, f->range.end.line + 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool hover = false, tsv = false, reach = false;
  AnalysisOptions options;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--max-time-s" && a + 1 < argc) {
      options.limits.max_time = std::chrono::seconds(std::stoi(argv[++a]));
      continue;
    }
    if (std::string(argv[a]) == "--hover") {
      hover = true;
      continue;
    }
    if (std::string(argv[a]) == "--reach") {
      reach = true;
      continue;
    }
    if (std::string(argv[a]) == "--tsv") {
      tsv = true;
      continue;
    }
    std::ifstream in(argv[a], std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    AnalysisResult r = analyze({argv[a], text.str()}, options);
    if (reach) {
      print_reach(argv[a], r);
      continue;
    }
    if (tsv) {
      print_tsv(argv[a], r);
      continue;
    }
    std::printf("== %s (parsed %d, %.0f ms + %.1f ms)\n", argv[a], int(r.parsed), r.parse_ms, r.analysis_ms);
    for (const auto& f : r.model.functions) {
      std::printf("function %s [%s]%s\n", f.key.c_str(), f.kind == FunctionKind::Kernel ? "kernel" : "device",
                  f.is_template ? " template" : "");
      for (std::size_t i = 0; i < f.conditions.size(); ++i) {
        const auto& c = f.conditions[i];
        std::printf("  cond %zu kind %d line %d: %s  => %s\n", i, int(c.kind), c.range.start.line + 1,
                    c.spelling.c_str(), to_string(c.expr).c_str());
      }
      for (const auto& acc : f.accesses) {
        std::printf("  %s %s line %d `%s` bytes %d offset %s guards", to_string(acc.space), to_string(acc.kind),
                    acc.range.start.line + 1, acc.spelling.c_str(), acc.element_bytes,
                    to_string(acc.byte_offset).c_str());
        for (const auto& g : acc.guards) std::printf(" %d%s", g.condition, g.taken ? "" : "!");
        std::printf("\n");
      }
      for (const auto& b : f.barriers) {
        std::printf("  barrier line %d `%s` guards", b.range.start.line + 1, b.spelling.c_str());
        for (const auto& g : b.guards) std::printf(" %d%s", g.condition, g.taken ? "" : "!");
        std::printf("\n");
      }
      for (const auto& c : f.calls) std::printf("  call %s line %d\n", c.callee.c_str(), c.range.start.line + 1);
    }
    for (const auto& l : r.model.launches)
      std::printf("launch %s line %d block `%s`%s\n", l.kernel.c_str(), l.range.start.line + 1,
                  l.block.spelling.c_str(), l.block.value ? "" : " (not constant)");
    for (const auto& h : r.model.host_functions) {
      std::printf("host %s\n", h.name.c_str());
      for (std::size_t b = 0; b < h.buffers.size(); ++b)
        std::printf("  buffer %zu `%s` storage %d pointee %s (%d bytes)\n", b, h.buffers[b].name.c_str(),
                    int(h.buffers[b].storage), h.buffers[b].pointee_type.c_str(), h.buffers[b].pointee_bytes);
      for (const auto& e : h.events) {
        std::printf("  line %d %s `%s` region %d buffer %d", e.range.start.line + 1, to_string(e.kind),
                    e.spelling.c_str(), e.region, e.buffer.buffer);
        if (e.kind == HostEventKind::Use) std::printf(" use %s other %d", to_string(e.use), e.other);
        if (e.kind == HostEventKind::Launch) {
          std::printf(" launch %d stream `%s` args", e.launch, e.stream.c_str());
          for (const auto& a : e.arguments) std::printf(" %d%s", a.buffer, a.offset ? "+" : "");
        }
        if (e.kind == HostEventKind::Copy) std::printf(" %d -> %d", e.source.buffer, e.destination.buffer);
        if (!e.bytes.spelling.empty()) std::printf(" bytes `%s`", e.bytes.spelling.c_str());
        std::printf("\n");
      }
    }
    for (const auto& f : r.findings) {
      std::printf("%d:%d: %s: %s [%s]\n", f.location.range.start.line + 1, f.location.range.start.column + 1,
                  to_string(f.severity), f.message.c_str(), f.code.c_str());
      if (hover && !f.explanation_markdown.empty()) std::printf("---\n%s\n---\n", f.explanation_markdown.c_str());
    }
  }
  return 0;
}
