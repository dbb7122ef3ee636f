// One entry of the style corpus (tests/unit/agent/style_corpus/corpus.txt):
// the built-in search, run offline on the file as `warplens optimize
// --candidates-only` runs it (findings from the same front end, the same
// search options), must propose a candidate whose plan contains the expected
// rewrites in that order; that candidate and the best-predicted one must
// compile with nvcc -arch=sm_90 (host and device code).
//
//   agent_style_corpus_check SOURCE_DIR FILE KERNEL PLAN INCLUDE|-
//
// Exit 0 when the entry holds, 1 with the reasons when it does not.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "agent/search.h"
#include "analysis/analyzer.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

// `want` appears in `plan` in order (other steps may sit in between).
bool contains_in_order(const RewritePlan& plan, const std::vector<std::string>& want) {
  std::size_t at = 0;
  for (const RewriteStep& s : plan)
    if (at < want.size() && s.rewrite == want[at]) ++at;
  return at == want.size();
}

std::string compile(const Candidate& c, const fs::path& dir, const std::string& include) {
  const std::string nvcc = WARPLENS_NVCC;
  const fs::path src = dir / (c.id + ".cu"), log = dir / (c.id + ".log");
  std::ofstream(src) << c.source;
  std::string cmd = nvcc + " -std=c++17 -O1 -arch=sm_90 -c -o /dev/null";
  if (!include.empty()) cmd += " -I" + include;
  cmd += " " + src.string() + " > " + log.string() + " 2>&1";
  if (std::system(cmd.c_str()) == 0) return "";
  return read(log);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR FILE KERNEL PLAN INCLUDE|-\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path file = root / argv[2];
  const std::string kernel = argv[3];
  const std::vector<std::string> want = split(argv[4], '+');
  const std::string include = std::string(argv[5]) == "-" ? "" : (root / argv[5]).string();
  if (!rewrite_engine_available()) {
    std::printf("SKIP: this build has no Clang rewrite engine\n");
    return 77;
  }
  const SourceFile src{fs::absolute(file).lexically_normal().string(), read(file)};
  if (src.text.empty()) {
    std::fprintf(stderr, "FAIL: cannot read %s\n", file.c_str());
    return 1;
  }
  AnalysisOptions analysis;
  if (!include.empty()) analysis.extra_args.push_back("-I" + include);
  // The front end's defaults, not whichever build tree's compile_commands.json
  // lies above the corpus (the corpus' directories have none).
  analysis.compile_commands_dir = fs::absolute(file).parent_path().string();
  const AnalysisResult findings = analyze(src, analysis);
  SearchOptions options;
  options.engine.analysis = analysis;
  options.max_candidates = 8;
  options.max_expansions = 10;
  OfflineSearch s = generate_candidates(src, kernel, findings.findings, std::nullopt, options);
  int failures = 0;
  if (!s.error.empty()) {
    std::fprintf(stderr, "FAIL: %s\n", s.error.c_str());
    return 1;
  }
  std::printf("%s (%s): %zu candidate(s)\n", argv[2], kernel.c_str(), s.candidates.size());
  for (const auto& c : s.candidates) std::printf("  %s x%.2f %s\n", c.id.c_str(), c.predicted_gain, to_string(c.plan).c_str());
  std::vector<const Candidate*> to_compile;
  for (const auto& c : s.candidates)
    if (contains_in_order(c.plan, want)) to_compile.push_back(&c);
  if (to_compile.empty()) {
    std::fprintf(stderr, "FAIL: no candidate's plan contains %s\n", argv[4]);
    for (const auto& r : s.refused) std::fprintf(stderr, "  refused %s: %s\n", r.rewrite.c_str(), r.reason.c_str());
    for (const auto& l : s.log.lines) std::fprintf(stderr, "  log: %s\n", l.c_str());
    ++failures;
  }
  if (to_compile.size() > 2) to_compile.resize(2);
  if (!s.candidates.empty() && std::find(to_compile.begin(), to_compile.end(), &s.candidates.front()) == to_compile.end())
    to_compile.push_back(&s.candidates.front());
  if (std::string(WARPLENS_NVCC).empty()) {
    std::printf("nvcc not found: the candidates' compile check is skipped\n");
    return failures ? 1 : 77;
  }
  const fs::path dir = fs::temp_directory_path() / ("warplens-style-corpus-" + fs::path(argv[2]).stem().string());
  fs::create_directories(dir);
  for (const Candidate* c : to_compile) {
    std::string errors = compile(*c, dir, include);
    if (!errors.empty()) {
      std::fprintf(stderr, "FAIL: %s (%s) does not compile:\n%s\n--- source ---\n%s\n", c->id.c_str(),
                   to_string(c->plan).c_str(), errors.c_str(), c->source.c_str());
      ++failures;
    } else {
      std::printf("  %s compiles\n", c->id.c_str());
    }
  }
  fs::remove_all(dir);
  return failures ? 1 : 0;
}
