#include "agent/candidate_store.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "agent/text_diff.h"
#include "agent/unified_diff.h"

namespace warplens::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "warplens-candidates/1";

bool write_file(const fs::path& p, const std::string& text, std::string& error) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) {
    error = "cannot write " + p.string();
    return false;
  }
  return true;
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

bool write_candidate_set(const CandidateSet& set, std::string& error) {
  std::error_code ec;
  fs::create_directories(set.dir, ec);
  if (ec) {
    error = "cannot create " + set.dir.string() + ": " + ec.message();
    return false;
  }
  if (!write_file(set.dir / "original.cu", set.original_text, error)) return false;
  json m;
  m["format"] = kFormat;
  m["name"] = set.name;
  m["kernel"] = set.kernel;
  m["source_path"] = set.source_path;
  m["original"] = "original.cu";
  m["include_dirs"] = set.include_dirs;
  if (!set.pytorch_reference.empty()) m["pytorch_reference"] = set.pytorch_reference;
  m["candidates"] = json::array();
  // Each candidate also as a patch of the user's file, relative to the git
  // working tree holding it, else the directory the set is written from
  // (`git apply cNN.patch` anywhere in that tree, or there).
  std::error_code cwd_ec;
  const std::string cwd = fs::current_path(cwd_ec).string();
  const std::string patch_file_path =
      set.source_path.empty() ? std::string("original.cu")
                              : patch_path(set.source_path, patch_base(set.source_path, cwd));
  for (const Candidate& c : set.candidates) {
    const std::string header = candidate_file_header(c);
    const std::string file = c.id + ".cu";
    if (!write_file(set.dir / file, header + c.source, error)) return false;
    const std::string patch = c.id + ".patch";
    if (!write_file(set.dir / patch, unified_diff(set.original_text, c.source, patch_file_path), error)) return false;
    json j;
    j["id"] = c.id;
    j["file"] = file;
    j["patch"] = patch;
    j["header_lines"] = count_lines(header);
    j["kernel"] = c.kernel;
    j["result_kernel"] = c.result_kernel;
    j["policy"] = c.policy;
    j["plan"] = json::array();
    for (const auto& s : c.plan) j["plan"].push_back({{"rewrite", s.rewrite}, {"params", s.params}});
    j["description"] = c.description;
    j["launch"] = json::array();
    for (const auto& l : c.launch_changes) j["launch"].push_back(format_launch_declaration(l));
    if (c.fusion) j["fusion"] = format_fusion_declaration(*c.fusion);
    if (c.reassociation) {
      j["reassociates"] = json::array();
      for (const auto& e : *c.reassociation) j["reassociates"].push_back({{"param", e.param}, {"constant", e.constant}});
    }
    j["notes"] = c.notes;
    j["predicted_gain"] = c.predicted_gain;
    m["candidates"].push_back(j);
  }
  m["refused"] = json::array();
  for (const auto& r : set.refused) m["refused"].push_back({{"rewrite", r.rewrite}, {"reason", r.reason}});
  m["log"] = set.log;
  return write_file(set.dir / "manifest.json", m.dump(2) + "\n", error);
}

std::optional<CandidateSet> read_candidate_set(const fs::path& dir, std::string& error) {
  auto text = read_file(dir / "manifest.json");
  if (!text) {
    error = "no manifest.json in " + dir.string() + " (write one with `warplens optimize --candidates-only --out DIR`)";
    return std::nullopt;
  }
  CandidateSet set;
  set.dir = dir;
  try {
    json m = json::parse(*text);
    if (m.value("format", "") != kFormat) {
      error = dir.string() + "/manifest.json: format is not " + std::string(kFormat);
      return std::nullopt;
    }
    set.name = m.value("name", "");
    set.kernel = m.at("kernel").get<std::string>();
    set.source_path = m.value("source_path", "");
    set.include_dirs = m.value("include_dirs", std::vector<std::string>{});
    set.pytorch_reference = m.value("pytorch_reference", "");
    auto original = read_file(dir / m.value("original", "original.cu"));
    if (!original) {
      error = "missing " + (dir / m.value("original", "original.cu")).string();
      return std::nullopt;
    }
    set.original_text = *original;
    for (const auto& j : m.at("candidates")) {
      Candidate c;
      c.id = j.at("id").get<std::string>();
      auto body = read_file(dir / j.at("file").get<std::string>());
      if (!body) {
        error = "missing candidate file " + j.at("file").get<std::string>();
        return std::nullopt;
      }
      // Drop the comment header: the source is what the user would get.
      const int header = j.value("header_lines", 0);
      std::size_t pos = 0;
      for (int k = 0; k < header && pos != std::string::npos; ++k) {
        pos = body->find('\n', pos);
        if (pos != std::string::npos) ++pos;
      }
      c.source = pos == std::string::npos ? "" : body->substr(pos);
      c.kernel = j.value("kernel", set.kernel);
      c.result_kernel = j.value("result_kernel", c.kernel);
      c.policy = j.value("policy", "directory");
      for (const auto& s : j.value("plan", json::array()))
        c.plan.push_back({s.at("rewrite").get<std::string>(), s.value("params", std::map<std::string, std::int64_t>{})});
      c.description = j.value("description", "");
      for (const auto& l : j.value("launch", std::vector<std::string>{})) {
        auto d = parse_launch_declaration(l);
        if (!d) {
          error = c.id + ": malformed launch declaration: " + l;
          return std::nullopt;
        }
        c.launch_changes.push_back(*d);
      }
      if (j.contains("fusion")) {
        c.fusion = parse_fusion_declaration(j["fusion"].get<std::string>());
        if (!c.fusion) {
          error = c.id + ": malformed fusion declaration";
          return std::nullopt;
        }
      }
      if (j.contains("reassociates")) {
        c.reassociation = ReassociatedTerms{};
        for (const auto& e : j["reassociates"]) c.reassociation->push_back({e.value("param", -1), e.value("constant", std::int64_t{0})});
      }
      c.notes = j.value("notes", std::vector<std::string>{});
      c.predicted_gain = j.value("predicted_gain", 1.0);
      c.edits = minimal_edits(set.original_text, c.source);
      set.candidates.push_back(std::move(c));
    }
    for (const auto& r : m.value("refused", json::array()))
      set.refused.push_back({r.value("rewrite", ""), r.value("reason", "")});
    set.log = m.value("log", std::vector<std::string>{});
  } catch (const std::exception& e) {
    error = dir.string() + "/manifest.json: " + e.what();
    return std::nullopt;
  }
  return set;
}

std::vector<std::string> absolute_include_dirs(const CandidateSet& set) {
  std::vector<std::string> out;
  for (const auto& d : set.include_dirs) {
    fs::path p(d);
    out.push_back((p.is_absolute() ? p : fs::absolute(set.dir / p)).lexically_normal().string());
  }
  return out;
}

SourceFile original_of(const CandidateSet& set) {
  return {fs::absolute(set.dir / "original.cu").lexically_normal().string(), set.original_text};
}

}  // namespace warplens::agent
