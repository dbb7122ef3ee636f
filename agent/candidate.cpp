#include "agent/candidate.h"

#include <charconv>
#include <sstream>

namespace warplens::agent {

std::string RewriteStep::to_string() const {
  std::string s = rewrite + "(";
  bool first = true;
  for (const auto& [k, v] : params) {
    if (!first) s += ", ";
    first = false;
    s += k + "=" + std::to_string(v);
  }
  return s + ")";
}

std::string to_string(const RewritePlan& plan) {
  if (plan.empty()) return "(free-form edit)";
  std::string s;
  for (const auto& step : plan) {
    if (!s.empty()) s += " + ";
    s += step.to_string();
  }
  return s;
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// "key=value key=value" after a "// warplens-xxx:" prefix.
std::optional<std::map<std::string, std::string, std::less<>>> parse_fields(std::string_view line,
                                                                            std::string_view tag) {
  line = trim(line);
  const std::string prefix = "// " + std::string(tag) + ":";
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  line.remove_prefix(prefix.size());
  std::map<std::string, std::string, std::less<>> fields;
  for (auto word : split(trim(line), ' ')) {
    if (word.empty()) continue;
    auto eq = word.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    fields[std::string(word.substr(0, eq))] = std::string(word.substr(eq + 1));
  }
  return fields;
}

std::optional<std::array<std::int64_t, 3>> parse_triple(std::string_view s) {
  auto parts = split(s, ',');
  if (parts.size() != 3) return std::nullopt;
  std::array<std::int64_t, 3> v{};
  for (int i = 0; i < 3; ++i) {
    auto x = to_int(parts[i]);
    if (!x || *x <= 0) return std::nullopt;
    v[i] = *x;
  }
  return v;
}

}  // namespace

LaunchShape reshape_launch(const LaunchChange& change, const LaunchShape& original, int sm_count,
                           const std::map<int, std::int64_t>& args) {
  Dim3 g = original.grid, b = original.block;
  if (change.swap_xy) {
    std::swap(g.x, g.y);
    std::swap(b.x, b.y);
  }
  const Dim3 nb = change.block.value_or(b);
  const std::int64_t gs[3] = {g.x, g.y, g.z}, bs[3] = {b.x, b.y, b.z}, nbs[3] = {nb.x, nb.y, nb.z};
  std::int64_t out[3];
  for (int d = 0; d < 3; ++d) {
    const Ratio r = change.thread_scale[d];
    const std::int64_t threads = ceil_div(gs[d] * bs[d] * r.num, r.den);
    out[d] = std::max<std::int64_t>(1, ceil_div(threads, nbs[d]));
  }
  if (change.cover) {
    for (int d = 0; d < 2; ++d) {
      const ParamExtent& e = (*change.cover)[static_cast<std::size_t>(d)];
      std::int64_t threads = e.constant;
      if (e.param >= 0) {
        auto it = args.find(e.param);
        threads = it == args.end() ? 1 : it->second;
      }
      out[d] = std::max<std::int64_t>(1, ceil_div(std::max<std::int64_t>(1, threads), nbs[d]));
    }
    out[2] = 1;
  }
  if (change.persistent_blocks_per_sm > 0 && sm_count > 0)
    out[0] = std::min<std::int64_t>(out[0], static_cast<std::int64_t>(sm_count) * change.persistent_blocks_per_sm);
  return {{out[0], out[1], out[2]}, nb};
}

std::string format_launch_declaration(const LaunchChange& c) {
  std::ostringstream o;
  o << "// warplens-launch: kernel=" << c.kernel << " block=";
  if (c.block) o << c.block->x << "," << c.block->y << "," << c.block->z;
  else o << "same";
  o << " swap-xy=" << (c.swap_xy ? 1 : 0) << " scale=";
  for (int d = 0; d < 3; ++d) o << (d ? "," : "") << c.thread_scale[d].num << "/" << c.thread_scale[d].den;
  o << " persistent=" << c.persistent_blocks_per_sm;
  if (c.cover) {
    o << " cover=";
    for (int d = 0; d < 2; ++d) {
      const ParamExtent& e = (*c.cover)[static_cast<std::size_t>(d)];
      o << (d ? "," : "") << (e.param >= 0 ? "p" + std::to_string(e.param) : std::to_string(e.constant));
    }
  }
  return o.str();
}

std::optional<LaunchChange> parse_launch_declaration(std::string_view line) {
  auto f = parse_fields(line, "warplens-launch");
  if (!f) return std::nullopt;
  LaunchChange c;
  auto get = [&](const char* k) -> const std::string* {
    auto it = f->find(k);
    return it == f->end() ? nullptr : &it->second;
  };
  const std::string* kernel = get("kernel");
  if (!kernel || kernel->empty()) return std::nullopt;
  c.kernel = *kernel;
  if (const std::string* b = get("block"); b && *b != "same") {
    auto t = parse_triple(*b);
    if (!t) return std::nullopt;
    c.block = Dim3{(*t)[0], (*t)[1], (*t)[2]};
  }
  if (const std::string* s = get("swap-xy")) {
    if (*s != "0" && *s != "1") return std::nullopt;
    c.swap_xy = *s == "1";
  }
  if (const std::string* s = get("scale")) {
    auto parts = split(*s, ',');
    if (parts.size() != 3) return std::nullopt;
    for (int d = 0; d < 3; ++d) {
      auto nd = split(parts[d], '/');
      if (nd.size() != 2) return std::nullopt;
      auto n = to_int(nd[0]), dd = to_int(nd[1]);
      if (!n || !dd || *n <= 0 || *dd <= 0) return std::nullopt;
      c.thread_scale[d] = {*n, *dd};
    }
  }
  if (const std::string* p = get("persistent")) {
    auto v = to_int(*p);
    if (!v || *v < 0) return std::nullopt;
    c.persistent_blocks_per_sm = static_cast<int>(*v);
  }
  if (const std::string* s = get("cover")) {
    auto parts = split(*s, ',');
    if (parts.size() != 2) return std::nullopt;
    std::array<ParamExtent, 2> cover{};
    for (int d = 0; d < 2; ++d) {
      std::string_view w = parts[static_cast<std::size_t>(d)];
      ParamExtent e;
      if (!w.empty() && w[0] == 'p') {
        auto i = to_int(w.substr(1));
        if (!i || *i < 0 || *i > 4096) return std::nullopt;
        e.param = static_cast<int>(*i);
      } else {
        auto v = to_int(w);
        if (!v || *v <= 0) return std::nullopt;
        e.constant = *v;
      }
      cover[static_cast<std::size_t>(d)] = e;
    }
    c.cover = cover;
  }
  return c;
}

std::string format_fusion_declaration(const FusionDeclaration& f) {
  std::ostringstream o;
  o << "// warplens-fused: kernel=" << f.fused_kernel << " first=" << f.first << " second=" << f.second
    << " params=";
  for (std::size_t i = 0; i < f.params.size(); ++i)
    o << (i ? "," : "") << (f.params[i].launch == 0 ? "A" : "B") << f.params[i].index;
  o << " elides=A" << f.elided;
  return o.str();
}

std::optional<FusionDeclaration> parse_fusion_declaration(std::string_view line) {
  auto f = parse_fields(line, "warplens-fused");
  if (!f) return std::nullopt;
  FusionDeclaration d;
  for (const char* k : {"kernel", "first", "second", "params", "elides"})
    if (!f->count(k)) return std::nullopt;
  d.fused_kernel = f->at("kernel");
  d.first = f->at("first");
  d.second = f->at("second");
  auto source = [](std::string_view s) -> std::optional<FusionDeclaration::ParamSource> {
    if (s.size() < 2 || (s[0] != 'A' && s[0] != 'B')) return std::nullopt;
    auto i = to_int(s.substr(1));
    if (!i || *i < 0) return std::nullopt;
    return FusionDeclaration::ParamSource{s[0] == 'A' ? 0 : 1, static_cast<int>(*i)};
  };
  for (auto p : split(f->at("params"), ',')) {
    auto s = source(p);
    if (!s) return std::nullopt;
    d.params.push_back(*s);
  }
  auto e = source(f->at("elides"));
  if (!e || e->launch != 0) return std::nullopt;
  d.elided = e->index;
  return d;
}

std::string candidate_file_header(const Candidate& c) {
  std::ostringstream o;
  o << "// warplens candidate " << c.id << " for kernel `" << c.kernel << "` (policy " << c.policy << ")\n";
  o << "// plan: " << to_string(c.plan) << "\n";
  if (!c.description.empty()) o << "// " << c.description << "\n";
  for (const auto& n : c.notes) o << "// note: " << n << "\n";
  for (const auto& l : c.launch_changes) o << format_launch_declaration(l) << "\n";
  if (c.fusion) o << format_fusion_declaration(*c.fusion) << "\n";
  if (c.reassociation)
    o << format_reassociation_declaration(c.result_kernel.empty() ? c.kernel : c.result_kernel, *c.reassociation)
      << "\n";
  return o.str();
}

std::string format_reassociation_declaration(const std::string& kernel, const ReassociatedTerms& terms) {
  std::string t;
  for (const ParamExtent& e : terms)
    t += (t.empty() ? "" : "*") + (e.param >= 0 ? "p" + std::to_string(e.param) : std::to_string(e.constant));
  return "// warplens-reassociates: kernel=" + kernel + " terms=" + (t.empty() ? "inputs" : t);
}

std::optional<ReassociatedTerms> combine_reassociations(const std::optional<ReassociatedTerms>& a,
                                                        const std::optional<ReassociatedTerms>& b) {
  if (!a) return b;
  if (!b || *a == *b) return a;
  return ReassociatedTerms{};
}

std::vector<LaunchChange> find_launch_declarations(std::string_view text) {
  std::vector<LaunchChange> out;
  for (auto line : split(text, '\n'))
    if (auto c = parse_launch_declaration(line)) out.push_back(*c);
  return out;
}

std::optional<FusionDeclaration> find_fusion_declaration(std::string_view text) {
  for (auto line : split(text, '\n'))
    if (auto f = parse_fusion_declaration(line)) return f;
  return std::nullopt;
}

}  // namespace warplens::agent
