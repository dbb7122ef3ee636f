#include "tests/support/annotations.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace warplens::testing {

namespace {

struct Open {
  std::string name;
  size_t begin;
  Position start;
  int depth = 0;  // plain '[' opened inside this range and not yet closed
};

std::string describe(std::string_view name) { return name.empty() ? "unnamed" : "'" + std::string(name) + "'"; }

}  // namespace

Annotations::Annotations(std::string_view in) {
  std::vector<Open> open;
  Position pos;
  auto emit = [&](char c) {
    code_.push_back(c);
    if (c == '\n') {
      ++pos.line;
      pos.column = 0;
    } else {
      ++pos.column;
    }
  };
  auto where = [&](size_t i) { return " at byte " + std::to_string(i) + " of the annotated text"; };

  size_t i = 0;
  while (i < in.size()) {
    char c = in[i];
    std::string name;
    size_t marker = i;
    if (c == '$') {
      size_t j = i + 1;
      while (j < in.size() && (std::isalnum(static_cast<unsigned char>(in[j])) || in[j] == '_')) ++j;
      name = std::string(in.substr(i + 1, j - i - 1));
      bool followed = in.substr(j, 2) == "[[" || (j < in.size() && in[j] == '^' && in.substr(j, 2) != "^^");
      if (name.empty() || !followed)
        throw std::invalid_argument("'$' must start a name followed by [[ or ^" + where(i));
      i = j;
      c = in[i];
    }
    if (c == '^') {
      if (name.empty() && in.substr(i, 2) == "^^") {  // a literal caret
        emit('^');
        i += 2;
        continue;
      }
      points_[name].push_back({code_.size(), code_.size(), {pos, pos}});
      ++i;
      continue;
    }
    if (c == '[' && (!name.empty() || in.substr(i, 2) == "[[")) {
      size_t run = 0;
      while (i + run < in.size() && in[i + run] == '[') ++run;
      if (!name.empty() && run < 2) throw std::invalid_argument("'$" + name + "' must be followed by [[" + where(marker));
      // `[[[`: literal '[' brackets first, then the range opens.
      for (size_t k = 0; k + 2 < run; ++k) {
        if (!open.empty()) ++open.back().depth;
        emit('[');
      }
      open.push_back({name, code_.size(), pos, 0});
      i += run;
      continue;
    }
    if (c == '[') {
      if (!open.empty()) ++open.back().depth;
      emit(c);
      ++i;
      continue;
    }
    if (c == ']') {
      if (!open.empty() && open.back().depth == 0 && in.substr(i, 2) == "]]") {
        Open o = open.back();
        open.pop_back();
        ranges_[o.name].push_back({o.begin, code_.size(), {o.start, pos}});
        i += 2;
        continue;
      }
      if (!open.empty() && open.back().depth > 0) --open.back().depth;
      emit(c);
      ++i;
      continue;
    }
    emit(c);
    ++i;
  }
  if (!open.empty())
    throw std::invalid_argument("unclosed " + describe(open.back().name) + " range opened at line " +
                                std::to_string(open.back().start.line + 1));
  for (auto& [n, marks] : ranges_)
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.begin < b.begin; });
}

const std::vector<Annotations::Mark>& Annotations::find(
    const std::map<std::string, std::vector<Mark>, std::less<>>& table, std::string_view name, const char* what) const {
  auto it = table.find(name);
  if (it == table.end()) throw std::invalid_argument(std::string("no ") + describe(name) + " " + what + " in the annotations");
  return it->second;
}

std::vector<Position> Annotations::points(std::string_view name) const {
  std::vector<Position> out;
  for (const auto& m : find(points_, name, "point")) out.push_back(m.range.start);
  return out;
}

Position Annotations::point(std::string_view name) const {
  const auto& marks = find(points_, name, "point");
  if (marks.size() != 1)
    throw std::invalid_argument(std::to_string(marks.size()) + " " + describe(name) + " points; expected exactly one");
  return marks.front().range.start;
}

size_t Annotations::point_offset(std::string_view name) const {
  const auto& marks = find(points_, name, "point");
  if (marks.size() != 1)
    throw std::invalid_argument(std::to_string(marks.size()) + " " + describe(name) + " points; expected exactly one");
  return marks.front().begin;
}

std::vector<Range> Annotations::ranges(std::string_view name) const {
  std::vector<Range> out;
  for (const auto& m : find(ranges_, name, "range")) out.push_back(m.range);
  return out;
}

Range Annotations::range(std::string_view name) const {
  const auto& marks = find(ranges_, name, "range");
  if (marks.size() != 1)
    throw std::invalid_argument(std::to_string(marks.size()) + " " + describe(name) + " ranges; expected exactly one");
  return marks.front().range;
}

std::vector<std::string> Annotations::range_names() const {
  std::vector<std::string> out;
  for (const auto& [n, marks] : ranges_)
    if (!n.empty()) out.push_back(n);
  return out;
}

bool Annotations::has_range(std::string_view name) const { return ranges_.find(name) != ranges_.end(); }

}  // namespace warplens::testing
