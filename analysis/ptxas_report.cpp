#include "analysis/ptxas_report.h"

#include <cctype>
#include <charconv>

#include "analysis/kernel_symbols.h"

namespace warplens {

std::int64_t FunctionResources::cmem_bank(int bank) const {
  for (const auto& [b, bytes] : cmem)
    if (b == bank) return bytes;
  return 0;
}

std::string ToolDiagnostic::text() const {
  std::string s;
  if (!file.empty()) {
    s += file;
    if (line > 0) {
      s += '(';
      s += std::to_string(line);
      s += ')';
    }
    s += ": ";
  } else if (!tool.empty()) {
    s += tool + " ";
  }
  s += level == Level::Warning ? "warning: " : level == Level::Fatal ? "fatal: " : "error: ";
  return s + message;
}

bool ToolOutput::has_errors() const {
  for (const auto& d : diagnostics)
    if (d.level != ToolDiagnostic::Level::Warning) return true;
  return false;
}

const FunctionResources* ToolOutput::find(std::string_view symbol, ResourceOrigin origin) const {
  for (const auto& f : functions)
    if (f.symbol == symbol && f.origin == origin) return &f;
  return nullptr;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Reads a leading unsigned integer; leaves `s` after it.
std::optional<std::int64_t> read_int(std::string_view& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(p - s.data()));
  return v;
}

// Build logs wrap tool output: MSBuild prefixes "1>", pip and CMake indent.
std::string_view strip_log_prefix(std::string_view line) {
  std::string_view s = trim(line);
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > 0 && i < s.size() && s[i] == '>') s = trim(s.substr(i + 1));
  return s;
}

// "ptxas info    : rest" -> tool "ptxas", level "info", rest.
struct ToolLine {
  std::string_view tool, level, rest;
  std::string_view location;  // "ptxas /tmp/x.ptx, line 208; error : ..." form
};

std::optional<ToolLine> split_tool_line(std::string_view s) {
  for (std::string_view tool : {"ptxas", "nvlink", "nvcc"}) {
    std::string_view r = s;
    if (!consume(r, tool) || r.empty() || r.front() != ' ') continue;
    r = trim(r);
    ToolLine tl;
    tl.tool = tool;
    // Optional "<file>, line N;" before the level.
    auto semi = r.find(';');
    auto colon = r.find(':');
    if (semi != std::string_view::npos && colon != std::string_view::npos && semi < colon &&
        r.substr(0, semi).find(", line ") != std::string_view::npos) {
      tl.location = r.substr(0, semi);
      r = trim(r.substr(semi + 1));
      colon = r.find(':');
    }
    if (colon == std::string_view::npos) return std::nullopt;
    tl.level = trim(r.substr(0, colon));
    if (tl.level != "info" && tl.level != "error" && tl.level != "warning" && tl.level != "fatal")
      return std::nullopt;
    tl.rest = trim(r.substr(colon + 1));
    return tl;
  }
  return std::nullopt;
}

ToolDiagnostic::Level level_of(std::string_view word) {
  if (word == "warning") return ToolDiagnostic::Level::Warning;
  if (word == "fatal" || word == "catastrophic error" || word == "fatal error")
    return ToolDiagnostic::Level::Fatal;
  return ToolDiagnostic::Level::Error;
}

// EDG: `file(12): error: msg`, `file(12): warning #177-D: msg`,
// `file(3): catastrophic error: cannot open source file "x.h"`.
std::optional<ToolDiagnostic> parse_edg(std::string_view s) {
  auto marker = s.find("): ");
  if (marker == std::string_view::npos) return std::nullopt;
  auto open = s.rfind('(', marker);
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::string_view num = s.substr(open + 1, marker - open - 1);
  std::string_view n = num;
  auto line = read_int(n);
  if (!line || !n.empty()) return std::nullopt;
  std::string_view rest = s.substr(marker + 3);
  std::string_view kind;
  for (std::string_view k : {"catastrophic error", "error", "warning"}) {
    if (rest.substr(0, k.size()) == k) {
      kind = k;
      break;
    }
  }
  if (kind.empty()) return std::nullopt;
  rest.remove_prefix(kind.size());
  auto colon = rest.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view between = trim(rest.substr(0, colon));  // "", "#177-D"
  if (!between.empty() && between.front() != '#') return std::nullopt;
  ToolDiagnostic d;
  d.level = level_of(kind);
  d.tool = "cudafe";
  d.file = std::string(s.substr(0, open));
  d.line = static_cast<int>(*line);
  d.message = std::string(trim(rest.substr(colon + 2)));
  return d;
}

// GCC-style (the host preprocessor nvcc runs first): `file:1:10: fatal error: msg`.
std::optional<ToolDiagnostic> parse_gcc(std::string_view s) {
  for (std::string_view kind : {": fatal error: ", ": error: ", ": warning: "}) {
    auto k = s.find(kind);
    if (k == std::string_view::npos) continue;
    std::string_view loc = s.substr(0, k);
    // loc = file:line[:col]
    auto c2 = loc.rfind(':');
    if (c2 == std::string_view::npos) continue;
    std::string_view last = loc.substr(c2 + 1);
    auto v2 = read_int(last);
    if (!v2 || !last.empty()) continue;
    std::string_view head = loc.substr(0, c2);
    int line = static_cast<int>(*v2), column = 0;
    auto c1 = head.rfind(':');
    if (c1 != std::string_view::npos) {
      std::string_view mid = head.substr(c1 + 1);
      auto v1 = read_int(mid);
      if (v1 && mid.empty()) {
        line = static_cast<int>(*v1);
        column = static_cast<int>(*v2);
        head = head.substr(0, c1);
      }
    }
    if (head.empty()) continue;
    ToolDiagnostic d;
    d.level = level_of(trim(kind.substr(2, kind.size() - 4)));
    d.tool = "preprocessor";
    d.file = std::string(head);
    d.line = line;
    d.column = column;
    d.message = std::string(trim(s.substr(k + kind.size())));
    return d;
  }
  return std::nullopt;
}

// "Used 14 registers, used 1 barriers, 4224 bytes smem, 360 bytes cmem[0]"
// (ptxas) or "used 14 registers, used 1 barriers, 0 stack, 5248 bytes smem,
// 548 bytes cmem[0], 0 bytes lmem" (nvlink). Unknown fields are ignored.
void parse_usage_fields(std::string_view s, FunctionResources& f) {
  while (!s.empty()) {
    auto comma = s.find(',');
    std::string_view field = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    bool used = consume(field, "Used ") || consume(field, "used ");
    auto n = read_int(field);
    if (!n) continue;
    field = trim(field);
    if (used && field == "registers") f.registers = static_cast<int>(*n);
    else if (used && field == "barriers") f.barriers = static_cast<int>(*n);
    else if (field == "bytes smem") f.shared_static_bytes = *n;
    else if (field == "bytes cumulative stack size" || field == "stack") f.cumulative_stack_bytes = *n;
    else if (field == "bytes lmem") f.local_bytes = *n;
    else if (field == "textures") f.textures = static_cast<int>(*n);
    else if (field == "samplers") f.samplers = static_cast<int>(*n);
    else if (field == "surfaces") f.surfaces = static_cast<int>(*n);
    else if (consume(field, "bytes cmem[")) {
      auto bank = read_int(field);
      if (bank) f.cmem.emplace_back(static_cast<int>(*bank), *n);
    }
  }
}

// "528 bytes stack frame, 272 bytes spill stores, 272 bytes spill loads"
bool parse_frame_line(std::string_view s, FunctionResources& f) {
  std::string_view r = s;
  auto frame = read_int(r);
  if (!frame || !consume(r, " bytes stack frame, ")) return false;
  auto stores = read_int(r);
  if (!stores || !consume(r, " bytes spill stores, ")) return false;
  auto loads = read_int(r);
  if (!loads || !consume(r, " bytes spill loads")) return false;
  f.stack_frame_bytes = *frame;
  f.spill_store_bytes = *stores;
  f.spill_load_bytes = *loads;
  return true;
}

std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.back() == ':') s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
  return s;
}

class Parser {
 public:
  ToolOutput out;

  void line(std::string_view raw) {
    std::string_view s = strip_log_prefix(raw);
    if (s.empty()) {
      context_open_ = false;
      return;
    }
    if (auto tl = split_tool_line(s)) {
      context_open_ = false;
      tool_line(*tl);
      return;
    }
    if (current_ >= 0 && parse_frame_line(s, out.functions[current_])) return;
    if (auto d = parse_edg(s)) return add(std::move(*d));
    if (auto d = parse_gcc(s)) return add(std::move(*d));
    // Source excerpt and caret lines that follow a located diagnostic.
    if (context_open_ && !out.diagnostics.empty() && out.diagnostics.back().context.size() < 4 &&
        s.find("detected in the compilation of") == std::string_view::npos &&
        s != "compilation terminated.") {
      out.diagnostics.back().context.emplace_back(raw.substr(0, raw.find_last_not_of("\r\n") + 1));
      return;
    }
    context_open_ = false;
  }

 private:
  int current_ = -1;
  bool context_open_ = false;

  void add(ToolDiagnostic d) {
    out.diagnostics.push_back(std::move(d));
    context_open_ = true;
  }

  int function(std::string_view printed, ResourceOrigin origin) {
    std::string symbol = strip_nvcc_static_prefix(printed);
    for (int i = 0; i < static_cast<int>(out.functions.size()); ++i)
      if (out.functions[i].symbol == symbol && out.functions[i].origin == origin) return i;
    FunctionResources f;
    f.symbol = symbol;
    f.demangled = demangle(symbol);
    f.origin = origin;
    f.is_entry = origin == ResourceOrigin::Nvlink;
    out.functions.push_back(std::move(f));
    return static_cast<int>(out.functions.size()) - 1;
  }

  void tool_line(const ToolLine& tl) {
    std::string_view r = tl.rest;
    if (tl.level != "info") {
      ToolDiagnostic d;
      d.level = level_of(tl.level);
      d.tool = std::string(tl.tool);
      d.message = std::string(r);
      if (!tl.location.empty()) {
        auto at = tl.location.find(", line ");
        d.file = std::string(tl.location.substr(0, at));
        std::string_view n = tl.location.substr(at + 7);
        if (auto v = read_int(n)) d.line = static_cast<int>(*v);
      }
      if (d.level == ToolDiagnostic::Level::Warning && tl.tool == "nvcc" &&
          r.find("Resource usage is not shown") != std::string_view::npos) {
        out.resource_usage_withheld = true;
        return;
      }
      out.diagnostics.push_back(std::move(d));
      return;
    }
    auto origin = tl.tool == "nvlink" ? ResourceOrigin::Nvlink : ResourceOrigin::Ptxas;
    if (consume(r, "Compiling entry function ")) {
      // '<name>' for '<arch>'   (names may contain spaces when pre-demangled)
      auto for_pos = r.rfind(" for '");
      std::string_view name = for_pos == std::string_view::npos ? r : r.substr(0, for_pos);
      current_ = function(unquote(name), origin);
      out.functions[current_].is_entry = true;
      if (for_pos != std::string_view::npos)
        out.functions[current_].arch = std::string(unquote(r.substr(for_pos + 5)));
    } else if (consume(r, "Function properties for ")) {
      current_ = function(unquote(r), origin);
    } else if (r.substr(0, 5) == "Used " || r.substr(0, 5) == "used ") {
      if (current_ >= 0) parse_usage_fields(r, out.functions[current_]);
    } else if (consume(r, "Overriding maximum register limit ")) {
      // "256 for 'name' with  32 of maxrregcount option"
      auto q1 = r.find('\'');
      auto q2 = q1 == std::string_view::npos ? q1 : r.find('\'', q1 + 1);
      auto with = r.find(" with ");
      if (q2 != std::string_view::npos && with != std::string_view::npos) {
        int i = function(r.substr(q1 + 1, q2 - q1 - 1), origin);
        std::string_view n = trim(r.substr(with + 6));
        if (auto v = read_int(n)) out.functions[i].register_limit = static_cast<int>(*v);
      }
    } else if (std::isdigit(static_cast<unsigned char>(r.empty() ? 'x' : r.front()))) {
      std::string_view g = r;
      auto n = read_int(g);
      if (n && consume(g, " bytes gmem")) out.gmem_bytes = *n;
    }
  }
};

}  // namespace

ToolOutput parse_nvcc_output(std::string_view text) {
  Parser p;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    p.line(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return std::move(p.out);
}

}  // namespace warplens
