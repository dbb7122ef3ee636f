// Finding, reading and choosing from compile_commands.json. The command-line
// translation itself is in compile_db_translate.cpp.
#include "analysis/compile_db.h"

#include "analysis/compile_flags.h"

#include "common/file_read.h"
#include "common/json_limits.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace warplens {

namespace {

bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::string normalise(const fs::path& p) { return p.lexically_normal().string(); }

std::string absolute_in(const std::string& path, const std::string& dir) {
  fs::path p(path);
  if (p.is_relative() && !dir.empty()) p = fs::path(dir) / p;
  return normalise(p);
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

bool is_header(const std::string& path) {
  static const char* exts[] = {".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc", ".tcc", ".ipp"};
  std::string ext = fs::path(path).extension().string();
  return std::find(std::begin(exts), std::end(exts), ext) != std::end(exts);
}

// 0-based line of a byte offset in `text`.
int line_of(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

struct CacheEntry {
  fs::file_time_type mtime;
  std::uintmax_t size = 0;
  CompileDatabaseLoad load;
};
std::mutex g_cache_mutex;
std::map<std::string, CacheEntry> g_cache;

Finding compile_command_finding(const std::string& file, Severity severity, std::string message,
                                const std::string& related_file = "", int related_line = -1) {
  Finding f;
  f.code = codes::kCompileCommand;
  f.severity = severity;
  f.source = "warplens";
  f.location = {file, {}};
  f.message = std::move(message);
  if (!related_file.empty()) {
    RelatedInformation r;
    r.location.file = related_file;
    if (related_line >= 0) r.location.range = {{related_line, 0}, {related_line, 0}};
    r.message = "compile_commands.json";
    f.related.push_back(std::move(r));
  }
  return f;
}

// Include lines of a source file, as written: `foo.cuh`, `dir/bar.h`.
std::vector<std::string> included_names(const std::string& path) {
  std::vector<std::string> out;
  common::FileReadResult read = common::read_text_file(path);
  if (!read) return out;
  std::istringstream in(*read.content);
  static const std::regex include(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::string line;
  for (int n = 0; n < 20000 && std::getline(in, line); ++n) {
    if (line.find("include") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(line, m, include)) out.push_back(m[1].str());
  }
  return out;
}

// Include directories named by translated flags.
std::vector<std::string> include_dirs(const TranslatedCommand& cmd) {
  std::vector<std::string> dirs;
  for (size_t i = 0; i < cmd.args.size(); ++i) {
    const auto& a = cmd.args[i];
    if ((a == "-I" || a == "-isystem" || a == "-iquote" || a == "-idirafter") && i + 1 < cmd.args.size())
      dirs.push_back(cmd.args[++i]);
    else if (a.rfind("-I", 0) == 0 && a.size() > 2)
      dirs.push_back(a.substr(2));
  }
  return dirs;
}

// Length of the common directory prefix: how "near" two files are.
size_t closeness(const std::string& a, const std::string& b) {
  fs::path pa = fs::path(a).parent_path(), pb = fs::path(b).parent_path();
  size_t n = 0;
  for (auto ia = pa.begin(), ib = pb.begin(); ia != pa.end() && ib != pb.end() && *ia == *ib; ++ia, ++ib) ++n;
  return n;
}

}  // namespace

std::string find_compile_commands(const std::string& file, const std::string& dir_option) {
  if (!dir_option.empty()) {
    fs::path p(dir_option);
    if (p.extension() == ".json") return file_exists(p) ? normalise(p) : "";
    if (file_exists(p / "compile_commands.json")) return normalise(p / "compile_commands.json");
    return "";
  }
  fs::path dir = fs::path(file).parent_path();
  for (int depth = 0; depth < 64 && !dir.empty(); ++depth) {
    for (const fs::path& candidate : {dir / "compile_commands.json", dir / "build" / "compile_commands.json"})
      if (file_exists(candidate)) return normalise(candidate);
    if (dir == dir.root_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return "";
}

CompileDatabaseLoad parse_compile_database(const std::string& text, const std::string& json_path) {
  CompileDatabaseLoad result;
  nlohmann::json json;
  // Walking and copying nest once per level: refused before it is built.
  if (common::json_nesting_depth(text) > common::kMaxJsonDepth) {
    result.error = "invalid compile database: " + common::too_deep_message();
    return result;
  }
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    result.error = std::string("invalid JSON: ") + e.what();
    result.error_line = line_of(text, e.byte > 0 ? e.byte - 1 : 0);
    return result;
  }
  if (!json.is_array()) {
    result.error = "the top level is not an array of compile commands";
    return result;
  }
  auto db = std::make_shared<CompileDatabase>();
  db->path = json_path;
  fs::path json_dir = fs::path(json_path).parent_path();
  for (size_t i = 0; i < json.size(); ++i) {
    const auto& entry = json[i];
    auto skip = [&](const std::string& why) {
      result.warnings.push_back("entry " + std::to_string(i) + ": " + why);
    };
    if (!entry.is_object()) {
      skip("not an object");
      continue;
    }
    auto string_field = [&](const char* name) -> std::optional<std::string> {
      auto it = entry.find(name);
      if (it == entry.end() || !it->is_string()) return std::nullopt;
      return it->get<std::string>();
    };
    auto directory = string_field("directory");
    auto file = string_field("file");
    if (!directory || !file) {
      skip("missing \"directory\" or \"file\"");
      continue;
    }
    CompileCommand cmd;
    cmd.directory = absolute_in(*directory, json_dir.string());
    cmd.file = absolute_in(*file, cmd.directory);
    if (auto args = entry.find("arguments"); args != entry.end()) {
      if (!args->is_array() || !std::all_of(args->begin(), args->end(), [](auto& a) { return a.is_string(); })) {
        skip("\"arguments\" is not an array of strings");
        continue;
      }
      for (const auto& a : *args) cmd.arguments.push_back(a.get<std::string>());
    } else if (auto command = string_field("command")) {
      cmd.arguments = split_shell_command(*command);
    } else {
      skip("neither \"arguments\" nor \"command\"");
      continue;
    }
    if (cmd.arguments.empty()) {
      skip("empty command");
      continue;
    }
    db->commands.push_back(std::move(cmd));
  }
  result.database = std::move(db);
  return result;
}

CompileDatabaseLoad load_compile_database(const std::string& json_path) {
  std::error_code ec;
  auto mtime = fs::last_write_time(json_path, ec);
  auto size = ec ? 0 : fs::file_size(json_path, ec);
  if (ec) {
    CompileDatabaseLoad r;
    r.error = "cannot read " + json_path + ": " + ec.message();
    return r;
  }
  {
    std::lock_guard lock(g_cache_mutex);
    auto it = g_cache.find(json_path);
    if (it != g_cache.end() && it->second.mtime == mtime && it->second.size == size) return it->second.load;
  }
  // The workspace's file: a regular file only (not a FIFO that blocks, not
  // /dev/zero), bounded (the largest real databases are a few hundred MiB).
  common::FileReadResult read = common::read_regular_file(json_path, std::size_t{1} << 30);
  if (!read) {
    CompileDatabaseLoad r;
    r.error = "cannot open " + read.error;
    return r;
  }
  CompileDatabaseLoad load = parse_compile_database(*read.content, json_path);
  std::lock_guard lock(g_cache_mutex);
  g_cache[json_path] = {mtime, size, load};
  return load;
}

CommandForFile find_command_for_file(const std::string& file, const std::string& dir_option,
                                     const std::vector<std::string>& workspace_roots) {
  CommandForFile out;
  out.description = "defaults";
  std::string target = normalise(file);

  // compile_flags.txt, when no database entry covers the file: its flags as
  // a clang command run in its directory (relative -I are relative to it).
  auto use_flags_file = [&]() -> bool {
    std::string path = find_compile_flags(target, workspace_roots);
    if (path.empty()) return false;
    common::FileReadResult read = common::read_text_file(path);
    if (!read) {
      out.findings.push_back(compile_command_finding(file, Severity::Warning,
                                                     "compile_flags.txt cannot be used: cannot read " + read.error));
      return false;
    }
    std::vector<std::string> argv{"clang++"};
    for (auto& flag : parse_compile_flags(*read.content)) argv.push_back(std::move(flag));
    std::string dir = fs::path(path).parent_path().string();
    TranslatedCommand t = translate_compile_command(argv, dir, target);
    for (const auto& p : t.problems)
      out.findings.push_back(compile_command_finding(file, Severity::Warning, path + ": " + p));
    out.flags_file = path;
    out.database_path.clear();
    out.directory = dir;
    out.arguments = std::move(argv);
    out.description = "compile_flags.txt: " + path;
    out.command = std::move(t);
    return true;
  };

  std::string json = find_compile_commands(file, dir_option);
  if (json.empty()) {
    if (!dir_option.empty())
      out.findings.push_back(compile_command_finding(
          file, Severity::Warning,
          "no compile_commands.json at '" + dir_option + "'; analysing without it"));
    use_flags_file();
    return out;
  }
  out.database_path = json;
  CompileDatabaseLoad load = load_compile_database(json);
  if (!load.database) {
    out.findings.push_back(compile_command_finding(
        file, Severity::Warning, json + " cannot be used (" + load.error + "); analysing without it",
        json, load.error_line.value_or(-1)));
    use_flags_file();
    return out;
  }
  const CompileDatabase& db = *load.database;

  auto use = [&](const CompileCommand& cmd, std::string how) {
    TranslatedCommand t = translate_compile_command(cmd.arguments, cmd.directory, cmd.file);
    for (const auto& p : t.problems)
      out.findings.push_back(compile_command_finding(file, Severity::Warning,
                                                     "compile command for " + cmd.file + ": " + p, json));
    out.directory = cmd.directory;
    out.arguments = cmd.arguments;
    out.description = "compile_commands.json: " + json + how;
    out.command = std::move(t);
  };

  // 1. The file's own entry.
  for (const auto& cmd : db.commands)
    if (cmd.file == target) {
      use(cmd, "");
      return out;
    }
  std::string name = fs::path(target).filename().string();
  for (const auto& cmd : db.commands)
    if (fs::path(cmd.file).filename() == name && same_file(cmd.file, target)) {
      use(cmd, "");
      return out;
    }

  // Candidates for borrowing: sources ordered by how near they are.
  std::vector<const CompileCommand*> nearby;
  for (const auto& cmd : db.commands)
    if (!is_header(cmd.file)) nearby.push_back(&cmd);
  std::stable_sort(nearby.begin(), nearby.end(), [&](auto* a, auto* b) {
    return closeness(a->file, target) > closeness(b->file, target);
  });

  // 2. A header: a source that includes it (bounded scan of the nearest).
  if (is_header(target)) {
    size_t scanned = 0;
    for (const CompileCommand* cmd : nearby) {
      if (++scanned > 300) break;
      for (const auto& inc : included_names(cmd->file)) {
        if (fs::path(inc).filename() != name) continue;
        TranslatedCommand t = translate_compile_command(cmd->arguments, cmd->directory, cmd->file);
        std::vector<std::string> dirs{fs::path(cmd->file).parent_path().string()};
        for (auto& d : include_dirs(t)) dirs.push_back(d);
        bool resolves = std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
          return same_file(normalise(fs::path(d) / inc), target);
        });
        if (!resolves) continue;
        use(*cmd, " (included from " + cmd->file + ")");
        out.context_file = cmd->file;
        return out;
      }
    }
  }

  // 3. compile_flags.txt: written for these files, so better than a guess.
  if (use_flags_file()) return out;

  // 4. Flags of the nearest source file.
  if (!nearby.empty()) {
    use(*nearby.front(), " (flags of " + nearby.front()->file + ")");
    return out;
  }
  out.description = "defaults (no entry in " + json + ")";
  return out;
}

}  // namespace warplens
