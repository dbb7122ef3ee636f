#include "agent/llm/analysis_text.h"

#include <sstream>

#include "agent/llm/text_clip.h"

namespace warplens::agent::llm {

std::string source_line(std::string_view text, int line) {
  if (line < 0) return {};
  std::size_t start = 0;
  for (int i = 0; i < line; ++i) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  std::size_t end = text.find('\n', start);
  std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
  while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
  return clip(l, 160);
}

std::string findings_text(const std::vector<Finding>& findings, std::string_view source, std::size_t limit) {
  if (findings.empty()) return "(none)\n";
  std::ostringstream out;
  std::size_t shown = 0;
  for (const Finding& f : findings) {
    if (shown == limit) {
      out << "... and " << findings.size() - shown << " more\n";
      break;
    }
    ++shown;
    const int line = f.location.range.start.line;
    out << "- line " << line + 1 << " [" << f.code << "] " << to_string(f.severity) << ": " << f.message << '\n';
    if (std::string text = source_line(source, line); !text.empty()) out << "    `" << text << "`\n";
  }
  return out.str();
}

std::string kernel_summary(const KernelModel& model) {
  std::ostringstream out;
  for (const Function* k : model.kernels()) {
    out << "- kernel " << k->signature << " (line " << k->range.start.line + 1 << ")";
    if (k->launch_bounds) out << " " << k->launch_bounds->spelling;
    out << '\n';
    for (const SharedArray& a : k->shared_arrays) {
      out << "    __shared__ " << a.element_type << ' ' << a.name;
      for (auto d : a.dims) out << '[' << (d ? std::to_string(d) : std::string()) << ']';
      out << '\n';
    }
  }
  for (const LaunchSite& l : model.launches) {
    out << "- launch " << l.kernel << "<<<" << l.grid.spelling << ", " << l.block.spelling;
    if (!l.shared_bytes_spelling.empty()) out << ", " << l.shared_bytes_spelling;
    out << ">>> in " << (l.caller.empty() ? "?" : l.caller) << " (line " << l.range.start.line + 1 << ")";
    if (l.block.value)
      out << ", block = " << (*l.block.value)[0] << "x" << (*l.block.value)[1] << "x" << (*l.block.value)[2];
    out << '\n';
  }
  std::string s = out.str();
  return s.empty() ? "(no kernels found)\n" : s;
}

}  // namespace warplens::agent::llm
