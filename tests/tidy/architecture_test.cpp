// The architecture's rules, checked on every source file (rust-analyzer's
// xtask tidy.rs is the model): docs/architecture.md states each rule on an
// "Architecture invariant:" line; this test holds the same rules as code,
// fails when a file breaks one, and fails when the page and this test
// disagree about which rules there are (so neither can drift alone).
//
// It reads the `#include` lines of every C/C++/CUDA source under the
// repository's source folders, as text: no compiler, no build needed.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = WARPLENS_SOURCE_DIR;

struct Include {
  std::string target;  // as written: "analysis/kernel_model.h" or <clang/AST/AST.h>
  bool angled = false;
  int line = 0;
};

struct SourceFile {
  std::string path;  // relative to the repository root, '/'-separated
  std::vector<Include> includes;
};

// The top-level folders that hold sources, and those that hold none of ours
// to check (editor plugins are TypeScript and Lua; build trees are generated).
const std::set<std::string> kSkipped = {".git", ".github", ".ci", ".cache", "build", "docs", "editors", "scripts",
                                        "cmake", "node_modules", "test-artifacts", ".gpu", ".whl"};

bool is_source(const fs::path& p) {
  static const std::set<std::string> exts = {".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh"};
  return exts.count(p.extension().string()) > 0;
}

std::vector<SourceFile> read_sources() {
  static const std::regex include_re(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<SourceFile> out;
  for (const auto& top : fs::directory_iterator(kRoot)) {
    if (!top.is_directory()) continue;
    const std::string name = top.path().filename().string();
    if (kSkipped.count(name) || name.rfind("build", 0) == 0 || name[0] == '.') continue;
    for (auto it = fs::recursive_directory_iterator(top.path()); it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && (it->path().filename() == "node_modules" || it->path().filename() == "__pycache__")) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file() || !is_source(it->path())) continue;
      SourceFile f;
      f.path = fs::relative(it->path(), kRoot).generic_string();
      std::ifstream in(it->path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        std::smatch m;
        if (std::regex_search(line, m, include_re)) f.includes.push_back({m[2].str(), m[1].str() == "<", n});
      }
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string top_folder(const std::string& path) { return path.substr(0, path.find('/')); }

// One of our headers: "folder/..." with a known top-level folder.
std::optional<std::string> our_folder(const Include& inc, const std::set<std::string>& folders) {
  if (inc.angled) return std::nullopt;
  const std::string top = top_folder(inc.target);
  if (inc.target.find('/') == std::string::npos || !folders.count(top)) return std::nullopt;
  return top;
}

struct Violation {
  std::string where;  // file:line
  std::string what;
};

struct Rule {
  std::string text;  // exactly as on the "Architecture invariant:" line of docs/architecture.md
  std::function<std::optional<std::string>(const SourceFile&, const Include&, const std::set<std::string>&)> check;
};

// `folder/` (and its subfolders) may include only its own headers and `allowed`.
Rule layer(const std::string& text, const std::string& folder, std::set<std::string> allowed) {
  allowed.insert(folder);
  return {text, [folder, allowed](const SourceFile& f, const Include& inc,
                                  const std::set<std::string>& folders) -> std::optional<std::string> {
            if (top_folder(f.path) != folder) return std::nullopt;
            auto to = our_folder(inc, folders);
            if (!to || allowed.count(*to)) return std::nullopt;
            return folder + "/ includes " + *to + "/";
          }};
}

bool clang_header(const Include& inc) {
  return starts_with(inc.target, "clang/") || starts_with(inc.target, "llvm/") ||
         starts_with(inc.target, "clang-c/") || starts_with(inc.target, "llvm-c/");
}

bool cuda_header(const Include& inc) {
  const std::string& t = inc.target;
  return t == "cuda.h" || starts_with(t, "cuda_runtime") || starts_with(t, "cupti") || t == "cuda_occupancy.h" ||
         starts_with(t, "nvrtc") || t == "cudaTypedefs.h" || starts_with(t, "generated_cuda");
}

// The engine's and the workflows' files that own a file or wire format, and
// so may use nlohmann/json (docs/architecture.md lists them).
const std::set<std::string> kJsonFormatOwners = {
    "agent/candidate_store.cpp",           // candidate directories (manifest.json)
    "agent/program_verifier.cpp",          // the self-checking programs' JSON reports
    "agent/report.cpp",                    // the optimize report's JSON form
    "agent/llm/chat_types.h",              // the OpenAI chat API
    "agent/llm/chat_wire.h",
    "agent/llm/chat_wire.cpp",
    "agent/llm/edit_proposal.cpp",
    "agent/llm/tool_arguments.h",
    "agent/llm/tool_box.h",
    "agent/llm/tool_box.cpp",
    "agent/llm/tool_definitions.cpp",
    "agent/verifier/pytorch_reference.cpp",  // the PyTorch timing helper's output
    "agent/verifier/verifier_json.h",        // the verdict format (warplens-verdict v1)
    "agent/verifier/replay/replay_main.cpp", // the replay child's protocol
    "agent/verifier/replay/replay_timer_check.cpp",
    "analysis/compile_db.cpp",             // compile_commands.json
    "profiler/capture_format.h",           // capture manifests
    "profiler/capture_format.cpp",
    "profiler/profile_json.cpp",           // the profile format
};

std::vector<Rule> rules() {
  std::vector<Rule> r;
  r.push_back(layer("`protocol/` includes only `protocol/` and `common/`.", "protocol", {"common"}));
  r.push_back(layer("`common/` includes only `common/`.", "common", {}));
  r.push_back(layer("`analysis/` includes only `analysis/` and `common/`.", "analysis", {"common"}));
  r.push_back(layer("`profiler/` includes only `profiler/`, `analysis/` and `common/`.", "profiler",
                    {"analysis", "common"}));
  r.push_back({"`profiler/inject/` (loaded into the user's program) includes only `profiler/`.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>& folders)
                   -> std::optional<std::string> {
                 if (!starts_with(f.path, "profiler/inject/")) return std::nullopt;
                 auto to = our_folder(inc, folders);
                 if (!to || *to == "profiler") return std::nullopt;
                 return "the injection library includes " + *to + "/";
               }});
  r.push_back(layer("`agent/` includes only `agent/`, `profiler/`, `analysis/` and `common/`.", "agent",
                    {"profiler", "analysis", "common"}));
  r.push_back(layer("`workflows/` includes only `workflows/`, `agent/`, `profiler/`, `analysis/` and `common/`: "
                    "no JSON-RPC, no LSP, no door.",
                    "workflows", {"agent", "profiler", "analysis", "common"}));
  r.push_back(layer("`formats/` includes only `formats/`, `protocol/`, `analysis/` and `common/`: the output "
                    "formats the server and the CLI share, no door.",
                    "formats", {"protocol", "analysis", "common"}));
  r.push_back(layer("`server/` includes only `server/`, `formats/`, `protocol/`, `workflows/`, `agent/`, "
                    "`profiler/`, `analysis/` and `common/`; never `cli/`.",
                    "server", {"formats", "protocol", "workflows", "agent", "profiler", "analysis", "common"}));
  r.push_back(layer("`cli/` includes only `cli/`, `server/`, `formats/`, `mcp/`, `protocol/`, `workflows/`, "
                    "`agent/`, `profiler/`, `analysis/` and `common/`.",
                    "cli",
                    {"server", "formats", "mcp", "protocol", "workflows", "agent", "profiler", "analysis", "common"}));
  r.push_back({"`cli/` includes nothing from `server/` but `cli/serve.cpp`, which starts the language server.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>& folders)
                   -> std::optional<std::string> {
                 if (top_folder(f.path) != "cli" || f.path == "cli/serve.cpp" || our_folder(inc, folders) != "server")
                   return std::nullopt;
                 return "the command line includes the language server (its JSON is in formats/)";
               }});
  r.push_back(layer("`mcp/` includes only `mcp/`, `protocol/` (its JSON-RPC messages), `workflows/`, `agent/`, "
                    "`profiler/`, `analysis/` and `common/`.",
                    "mcp", {"protocol", "workflows", "agent", "profiler", "analysis", "common"}));
  r.push_back(layer("`examples/` includes only `examples/`.", "examples", {}));
  r.push_back({"Only `tests/` includes `tests/`.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>& folders)
                   -> std::optional<std::string> {
                 if (top_folder(f.path) == "tests" || our_folder(inc, folders) != "tests") return std::nullopt;
                 return "includes a test file";
               }});
  r.push_back({"Only `analysis/clang/` and `agent/rewrites/` include Clang or LLVM headers.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (!clang_header(inc) || starts_with(f.path, "analysis/clang/") ||
                     starts_with(f.path, "agent/rewrites/") || starts_with(f.path, "tests/"))
                   return std::nullopt;
                 return "includes a Clang/LLVM header";
               }});
  r.push_back({"CUDA headers (`cuda.h`, `cuda_runtime*.h`, `cupti*.h`, `cuda_occupancy.h`, `nvrtc*.h`) appear only "
               "in `profiler/inject/`, `agent/verifier/replay/`, `analysis/occupancy.cpp` and "
               "`analysis/gpu_probe.cpp` (and in tests and examples).",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (!cuda_header(inc)) return std::nullopt;
                 for (const char* ok : {"profiler/inject/", "agent/verifier/replay/", "analysis/occupancy.cpp",
                                        "analysis/gpu_probe.cpp", "tests/", "examples/", "bench/"})
                   if (starts_with(f.path, ok)) return std::nullopt;
                 return "includes a CUDA header";
               }});
  r.push_back({"Boost.Asio and Beast appear only in `server/`, `cli/`, `mcp/` and `agent/llm/http_transport.cpp` "
               "(the LLM endpoint's HTTP client) (and in tests).",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (!inc.angled || !starts_with(inc.target, "boost/")) return std::nullopt;
                 const std::string top = top_folder(f.path);
                 if (top == "server" || top == "cli" || top == "mcp" || top == "tests" ||
                     f.path == "agent/llm/http_transport.cpp")
                   return std::nullopt;
                 return "includes Boost";
               }});
  r.push_back({"CLI11 appears only in `cli/options.h` (every command declares its options on its `OptionParser`) "
               "(and in tests).",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (!inc.angled || !starts_with(inc.target, "CLI/")) return std::nullopt;
                 if (f.path == "cli/options.h" || top_folder(f.path) == "tests") return std::nullopt;
                 return "includes CLI11 (read options through cli/options.h)";
               }});
  r.push_back({"In `analysis/`, `profiler/`, `agent/` and `workflows/`, only the files that own a file or wire "
               "format (listed below) include nlohmann/json.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (!starts_with(inc.target, "nlohmann/")) return std::nullopt;
                 const std::string top = top_folder(f.path);
                 if (top != "analysis" && top != "profiler" && top != "agent" && top != "workflows") return std::nullopt;
                 if (kJsonFormatOwners.count(f.path)) return std::nullopt;
                 return "includes nlohmann/json without owning a file format";
               }});
  r.push_back({"No header in `analysis/` includes `analysis/analyzer.h` (the entry point above the analyses); the "
               "option types are in `analysis/analysis_options.h`.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (top_folder(f.path) != "analysis" || f.path.size() < 2 ||
                     f.path.compare(f.path.size() - 2, 2, ".h") != 0 || inc.target != "analysis/analyzer.h")
                   return std::nullopt;
                 return "an analysis header includes the entry point analysis/analyzer.h";
               }});
  r.push_back({"`mcp/` knows JSON-RPC through `protocol/` (framing, jsonrpc) but not LSP: it includes no "
               "`protocol/lsp_*.h`.",
               [](const SourceFile& f, const Include& inc, const std::set<std::string>&) -> std::optional<std::string> {
                 if (top_folder(f.path) != "mcp" || inc.angled || !starts_with(inc.target, "protocol/lsp_"))
                   return std::nullopt;
                 return "the MCP server includes an LSP header";
               }});
  return r;
}

// The folders the rules know (a new top-level source folder needs a rule).
const std::set<std::string> kRuledFolders = {"protocol", "common", "analysis", "profiler", "agent",
                                             "workflows", "formats", "server", "cli",      "mcp",
                                             "examples", "tests",   "bench"};

std::vector<std::string> invariant_lines_in_docs() {
  std::ifstream in(kRoot / "docs" / "architecture.md");
  REQUIRE_MESSAGE(in, "docs/architecture.md is missing");
  std::vector<std::string> out;
  const std::string marker = "Architecture invariant: ";
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find(marker);
    if (at == std::string::npos) continue;
    std::string text = line.substr(at + marker.size());
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
    out.push_back(text);
  }
  return out;
}

}  // namespace

TEST_CASE("docs/architecture.md states exactly the rules this test checks") {
  std::vector<std::string> documented = invariant_lines_in_docs();
  std::set<std::string> checked;
  for (const auto& r : rules()) checked.insert(r.text);
  for (const auto& d : documented)
    CHECK_MESSAGE(checked.count(d), "documented but not checked (add it to rules()): " << d);
  std::set<std::string> stated(documented.begin(), documented.end());
  for (const auto& c : checked)
    CHECK_MESSAGE(stated.count(c), "checked but not on an `Architecture invariant:` line of docs/architecture.md: "
                                       << c);
}

TEST_CASE("every JSON format owner exists") {
  for (const auto& f : kJsonFormatOwners) CHECK_MESSAGE(fs::exists(kRoot / f), f << " is listed but gone");
}

TEST_CASE("every source file keeps the architecture invariants") {
  const std::vector<SourceFile> sources = read_sources();
  REQUIRE(sources.size() > 100);  // the walk found the tree
  std::set<std::string> folders;
  for (const auto& f : sources) folders.insert(top_folder(f.path));
  for (const auto& folder : folders)
    CHECK_MESSAGE(kRuledFolders.count(folder),
                  "the source folder " << folder << "/ has no rule: add an `Architecture invariant:` line for it");
  folders.insert(kRuledFolders.begin(), kRuledFolders.end());

  std::vector<Violation> violations;
  const std::vector<Rule> all = rules();
  for (const auto& f : sources)
    for (const auto& inc : f.includes)
      for (const auto& r : all)
        if (auto why = r.check(f, inc, folders))
          violations.push_back({f.path + ":" + std::to_string(inc.line), *why + " (" + inc.target + "); rule: " + r.text});
  std::ostringstream report;
  for (const auto& v : violations) report << "\n  " << v.where << ": " << v.what;
  CHECK_MESSAGE(violations.empty(), violations.size() << " violation(s):" << report.str());
}

TEST_CASE("the checks see violations (each rule against a made-up file)") {
  const std::set<std::string> folders(kRuledFolders.begin(), kRuledFolders.end());
  auto violates = [&](const std::string& path, const std::string& target, bool angled = false) {
    SourceFile f{path, {}};
    Include inc{target, angled, 1};
    for (const auto& r : rules())
      if (r.check(f, inc, folders)) return true;
    return false;
  };
  CHECK(violates("analysis/x.cpp", "profiler/profile_data.h"));
  CHECK(violates("workflows/x.cpp", "server/settings.h"));
  CHECK(violates("workflows/x.cpp", "protocol/lsp_basic.h"));
  CHECK(violates("server/x.cpp", "cli/cli.h"));
  CHECK(violates("agent/x.cpp", "workflows/optimize.h"));
  CHECK(violates("profiler/inject/x.cpp", "analysis/findings.h"));
  CHECK(violates("server/x.cpp", "tests/support/annotations.h"));
  CHECK(violates("analysis/kernel_model.cpp", "clang/AST/AST.h", true));
  CHECK(violates("profiler/runner.cpp", "cuda.h", true));
  CHECK(violates("agent/job.cpp", "boost/asio.hpp", true));
  CHECK(violates("agent/job.cpp", "nlohmann/json.hpp", true));
  CHECK(violates("cli/check.cpp", "CLI/CLI.hpp", true));
  CHECK(violates("server/x.cpp", "CLI/App.hpp", true));
  CHECK_FALSE(violates("cli/options.h", "CLI/CLI.hpp", true));
  CHECK(violates("mcp/x.cpp", "protocol/lsp_features.h"));
  CHECK(violates("mcp/x.cpp", "server/convert.h"));
  CHECK(violates("analysis/coalescing.h", "analysis/analyzer.h"));
  CHECK_FALSE(violates("analysis/analyzer.cpp", "analysis/analyzer.h"));
  CHECK(violates("cli/report.cpp", "server/report_json.h"));
  CHECK(violates("cli/inputs.h", "server/convert.h"));
  CHECK(violates("cli/cli_main.cpp", "server/logging.h"));
  CHECK_FALSE(violates("cli/serve.cpp", "server/language_server.h"));
  CHECK_FALSE(violates("cli/report.cpp", "formats/report_json.h"));
  CHECK(violates("formats/report_json.cpp", "server/document_store.h"));
  CHECK(violates("formats/x.cpp", "workflows/analyze_file.h"));
  CHECK(violates("workflows/x.cpp", "formats/convert.h"));
  CHECK(violates("mcp/x.cpp", "formats/convert.h"));
  CHECK_FALSE(violates("server/x.cpp", "formats/convert.h"));
  CHECK_FALSE(violates("workflows/optimize.cpp", "agent/job.h"));
  CHECK_FALSE(violates("analysis/clang/frontend.cpp", "clang/AST/AST.h", true));
  CHECK_FALSE(violates("mcp/x.cpp", "protocol/jsonrpc.h"));
  CHECK_FALSE(violates("profiler/profile_json.cpp", "nlohmann/json.hpp", true));
}
