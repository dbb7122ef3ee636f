// One rewrite snippet, checked against its whole expected output
// (tests/unit/agent/rewrite_snippets/README.md): ctest runs this once per
// snippet (rewrite_snippet.<name>), so each is its own test and they run in
// parallel. (rust-analyzer's check_assist(before, after) is the model.)
//
//   rewrite_snippet_check SNIPPET.cu      check it against SNIPPET.expected
//   rewrite_snippet_check --coverage DIR  every rewrite in the catalogue has a snippet in DIR
//
// WARPLENS_UPDATE_EXPECT=1 writes SNIPPET.expected from what the rewrite
// produced instead of comparing (then review the diff before committing).
// The rewritten source must also compile with nvcc (-arch=sm_90): without
// nvcc the test reports skipped (exit 77) after the text comparison.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "agent/candidate.h"
#include "agent/rewrite_engine.h"
#include "agent/text_diff.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

constexpr int kPass = 0, kFail = 1, kSkip = 77;

struct Snippet {
  fs::path path;
  std::string text;
  std::string kernel, rewrite;
  std::map<std::string, std::int64_t> params;
  bool applies = true;
  std::string reason;
  std::vector<std::string> outputs, not_outputs;
  std::string launch, motivation;
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string after(const std::string& line, const std::string& prefix) {
  std::string rest = line.substr(prefix.size());
  while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
  return rest;
}

Snippet load(const fs::path& p) {
  Snippet s;
  s.path = p;
  s.text = read(p);
  std::istringstream lines(s.text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("// test:", 0) == 0) {
      std::istringstream words(after(line, "// test:"));
      std::string w;
      while (words >> w) {
        auto eq = w.find('=');
        if (eq == std::string::npos) continue;
        std::string k = w.substr(0, eq), v = w.substr(eq + 1);
        if (k == "kernel") s.kernel = v;
        else if (k == "rewrite") s.rewrite = v;
        else s.params[k] = std::stoll(v);
      }
    } else if (line.rfind("// expect: applies", 0) == 0) {
      s.applies = true;
    } else if (line.rfind("// expect: refuses", 0) == 0) {
      s.applies = false;
      s.reason = after(line, "// expect: refuses");
    } else if (line.rfind("// expect-output:", 0) == 0) {
      s.outputs.push_back(after(line, "// expect-output:"));
    } else if (line.rfind("// expect-no-output:", 0) == 0) {
      s.not_outputs.push_back(after(line, "// expect-no-output:"));
    } else if (line.rfind("// expect-launch:", 0) == 0) {
      s.launch = after(line, "// expect-launch:");
    } else if (line.rfind("// expect-motivation:", 0) == 0) {
      s.motivation = after(line, "// expect-motivation:");
    }
  }
  return s;
}

// The engine sees the snippet without its expectations (so they cannot
// match themselves in the output); line numbers are kept.
std::string code_of(const Snippet& s) {
  std::string code;
  std::istringstream in(s.text);
  std::string line;
  while (std::getline(in, line))
    code += (line.rfind("// test:", 0) == 0 || line.rfind("// expect", 0) == 0 ? "//" : line) + "\n";
  return code;
}

bool matches(const RewriteOption& o, const Snippet& s) {
  if (o.step.rewrite != s.rewrite) return false;
  for (const auto& [k, v] : s.params) {
    auto it = o.step.params.find(k);
    if (it == o.step.params.end() || it->second != v) return false;
  }
  return true;
}

// Failures are collected, so one run shows every problem of the snippet.
struct Report {
  std::vector<std::string> failures;
  void fail(const std::string& m) { failures.push_back(m); }
};

// What the rewrite did, as the .expected file holds it.
std::string outcome_text(const Snippet& s, const KernelSurvey& survey, const RewriteOption* option) {
  if (!s.applies) {
    std::string reasons;
    for (const auto& x : survey.refused)
      if (x.rewrite == s.rewrite) reasons += (reasons.empty() ? "" : "\n") + ("refused: " + x.reason);
    if (option) return "applied: " + option->step.to_string() + "\n";
    return reasons.empty() ? "neither proposed nor refused\n" : reasons + "\n";
  }
  if (!option) {
    std::string refusal;
    for (const auto& x : survey.refused)
      if (x.rewrite == s.rewrite) refusal = x.reason;
    return "not proposed: " + refusal + "\n";
  }
  if (!option->result || !option->result->ok)
    return "proposed, but failed to apply: " + (option->result ? option->result->error : std::string("not applied")) +
           "\n";
  std::string out = "rewrite: " + option->step.to_string() + "\n";
  out += "motivation: " + option->motivation + "\n";
  for (const auto& l : option->result->launch_changes) out += "launch: " + format_launch_declaration(l) + "\n";
  out += "--- rewritten source\n" + option->result->source;
  return out;
}

// The lines of `expected` that differ from `actual`, as hunks.
std::string diff(const std::string& expected, const std::string& actual) {
  std::string out;
  std::vector<std::string> lines;
  {
    std::istringstream in(expected);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  for (const auto& e : minimal_edits(expected, actual)) {
    char head[96];
    std::snprintf(head, sizeof head, "@@ expected lines %d-%d\n", e.range.start.line + 1, e.range.end.line);
    out += head;
    for (int i = e.range.start.line; i < e.range.end.line && i < static_cast<int>(lines.size()); ++i)
      out += "- " + lines[static_cast<std::size_t>(i)] + "\n";
    std::istringstream in(e.new_text);
    std::string l;
    while (std::getline(in, l)) out += "+ " + l + "\n";
  }
  return out;
}

std::string nvcc_path() {
  if (const char* env = std::getenv("WARPLENS_NVCC"); env && *env) return env;
  return WARPLENS_NVCC;
}

// nvcc -c on the rewritten text; the diagnostics, empty when clean.
std::string nvcc_errors(const std::string& nvcc, const std::string& text, const fs::path& like) {
  fs::path dir = fs::temp_directory_path() / ("warplens-rewrite-snippet-" + like.stem().string());
  fs::create_directories(dir);
  fs::path src = dir / like.filename();
  std::ofstream(src, std::ios::binary) << text;
  fs::path log = dir / "nvcc.log";
  std::string cmd = "\"" + nvcc + "\" -std=c++17 -arch=sm_90 -c -o /dev/null -I\"" + like.parent_path().string() +
                    "\" \"" + src.string() + "\" > \"" + log.string() + "\" 2>&1";
  int rc = std::system(cmd.c_str());
  std::string out = rc == 0 ? "" : "nvcc failed:\n" + read(log);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

int check(const fs::path& path) {
  if (!rewrite_engine_available()) {
    std::printf("skipped: this build has no Clang rewrite engine\n");
    return kSkip;
  }
  Snippet s = load(path);
  Report r;
  if (s.kernel.empty() || s.rewrite.empty()) {
    std::fprintf(stderr, "%s: missing `// test: kernel=... rewrite=...`\n", path.c_str());
    return kFail;
  }
  if (!find_rewrite(s.rewrite)) {
    std::fprintf(stderr, "%s: no rewrite named %s\n", path.c_str(), s.rewrite.c_str());
    return kFail;
  }
  // Parsed with the front end's defaults: the snippets' directory has no
  // compile_commands.json (without this the build tree's would be found
  // upward and its nearest entry's flags borrowed).
  EngineOptions engine;
  engine.analysis.compile_commands_dir = path.parent_path().string();
  KernelSurvey survey = survey_kernel({fs::absolute(path).string(), code_of(s)}, s.kernel, engine, /*apply=*/true);
  if (!survey.parsed) {
    std::fprintf(stderr, "%s: the snippet does not parse: %s\n", path.c_str(), survey.error.c_str());
    return kFail;
  }
  const RewriteOption* option = nullptr;
  for (const auto& o : survey.options)
    if (matches(o, s)) option = &o;
  const std::string actual = outcome_text(s, survey, option);

  // The whole text first: it shows everything at once.
  std::string no_expected;  // set when there is no .expected to compare with
  fs::path expected_path = path;
  expected_path.replace_extension(".expected");
  if (const char* update = std::getenv("WARPLENS_UPDATE_EXPECT"); update && *update && std::string(update) != "0") {
    std::ofstream(expected_path, std::ios::binary) << actual;
    std::printf("updated %s\n", expected_path.c_str());
  } else if (!fs::exists(expected_path)) {
    // Not a pass: the snippet's own statements and nvcc below still run (and
    // can fail), but without its .expected the test ends skipped, saying so.
    no_expected = "skipped: no " + expected_path.filename().string() +
                  " yet, so the whole-text comparison did not run (`WARPLENS_UPDATE_EXPECT=1 ctest -R "
                  "rewrite_snippet." + path.stem().string() + "` writes it from the output above; review it)";
    std::printf("--- the output ---\n%s--- end ---\n", actual.c_str());
  } else if (std::string expected = read(expected_path); expected != actual) {
    r.fail("the output differs from " + expected_path.filename().string() + " (WARPLENS_UPDATE_EXPECT=1 rewrites it):\n" +
           diff(expected, actual));
  }

  // The snippet's own statements of intent.
  if (!s.applies) {
    if (option) r.fail("expected a refusal, got " + option->step.to_string());
    else if (actual.find(s.reason) == std::string::npos) r.fail("the refusal does not say `" + s.reason + "`");
  } else if (!option || !option->result || !option->result->ok) {
    r.fail("expected the rewrite to apply");
  } else {
    const std::string& out = option->result->source;
    for (const auto& want : s.outputs)
      if (out.find(want) == std::string::npos) r.fail("missing from the output: " + want);
    for (const auto& bad : s.not_outputs)
      if (out.find(bad) != std::string::npos) r.fail("unexpected in the output: " + bad);
    if (!s.motivation.empty() && option->motivation.find(s.motivation) == std::string::npos)
      r.fail("the motivation does not say `" + s.motivation + "`: " + option->motivation);
    if (!s.launch.empty() && actual.find("launch: ") == std::string::npos)
      r.fail("no launch declaration, expected `" + s.launch + "`");
    else if (!s.launch.empty() && actual.find(s.launch) == std::string::npos)
      r.fail("the launch declaration does not say `" + s.launch + "`");
  }

  for (const auto& f : r.failures) std::fprintf(stderr, "%s: %s\n", path.filename().c_str(), f.c_str());
  if (!r.failures.empty()) return kFail;
  auto passed = [&] {
    if (no_expected.empty()) return kPass;
    std::printf("%s\n", no_expected.c_str());
    return kSkip;
  };
  if (!s.applies || !option) return passed();  // a refusal has nothing to compile

  const std::string nvcc = nvcc_path();
  if (nvcc.empty() || (nvcc.find('/') != std::string::npos && !fs::exists(nvcc))) {
    std::printf("skipped: nvcc not found, so the rewritten source was not compiled (the text matched)\n");
    return kSkip;
  }
  if (std::string errors = nvcc_errors(nvcc, option->result->source, path); !errors.empty()) {
    std::fprintf(stderr, "%s: the rewritten source does not compile:\n%s\n--- rewritten source ---\n%s\n",
                 path.filename().c_str(), errors.c_str(), option->result->source.c_str());
    return kFail;
  }
  std::printf("%s: %s\n", path.filename().c_str(), s.applies ? "applies, matches, compiles" : "refuses as expected");
  return passed();
}

int coverage(const fs::path& dir) {
  std::set<std::string> covered;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cu") covered.insert(load(e.path()).rewrite);
  int missing = 0;
  for (const auto& info : rewrite_catalogue())
    if (!covered.count(info.name)) {
      std::fprintf(stderr, "no snippet for the rewrite %s in %s\n", info.name.c_str(), dir.c_str());
      ++missing;
    }
  for (const auto& name : covered)
    if (!find_rewrite(name)) {
      std::fprintf(stderr, "a snippet names the unknown rewrite %s\n", name.c_str());
      ++missing;
    }
  if (missing) return kFail;
  std::printf("every one of the %zu rewrites in the catalogue has a snippet\n", rewrite_catalogue().size());
  return kPass;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--coverage") return coverage(argv[2]);
  if (argc != 2) {
    std::fprintf(stderr, "usage: rewrite_snippet_check SNIPPET.cu | --coverage DIR\n");
    return 2;
  }
  return check(argv[1]);
}
