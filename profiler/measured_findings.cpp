#include "profiler/measured_findings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "profiler/demangle.h"
#include "profiler/kernel_summary.h"
#include "profiler/units.h"

namespace warplens::profile {
namespace fs = std::filesystem;

bool same_source_file(const Profile& profile, const std::string& profile_path,
                      const std::string& document_path) {
  if (profile_path == document_path) return true;
  std::error_code e1, e2;
  fs::path a = fs::weakly_canonical(profile_path, e1);
  fs::path b = fs::weakly_canonical(document_path, e2);
  if (!e1 && !e2 && a == b) return true;
  // Recorded elsewhere (another checkout, the GPU machine): accept the same
  // file name when it is unambiguous within the profile.
  const std::string name = fs::path(profile_path).filename().string();
  if (name.empty() || name != fs::path(document_path).filename().string()) return false;
  std::set<std::string> same_name;
  for (const LineMetrics& l : profile.lines)
    if (fs::path(l.file).filename() == name) same_name.insert(l.file);
  return same_name.size() == 1;
}

namespace {

// From the first to the last non-blank byte of 0-based `line`; without the
// text, the whole line up to the start of the next.
Range whole_line(int line, std::string_view text) {
  if (text.empty()) return {{line, 0}, {line + 1, 0}};
  std::size_t pos = 0;
  for (int i = 0; i < line; ++i) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return {{line, 0}, {line + 1, 0}};
    ++pos;
  }
  std::size_t end = text.find('\n', pos);
  std::string_view content = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
  if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
  std::size_t first = content.find_first_not_of(" \t");
  std::size_t last = content.find_last_not_of(" \t");
  if (first == std::string_view::npos) return {{line, 0}, {line, int(content.size())}};
  return {{line, int(first)}, {line, int(last + 1)}};
}

Range span(const std::vector<Range>& ranges) {
  Range r = ranges.front();
  for (const Range& x : ranges) {
    r.start = std::min(r.start, x.start);
    r.end = std::max(r.end, x.end);
  }
  return r;
}

bool starts_on(const Range& r, int line) { return r.start.line == line; }

// The statically found accesses on `line` that this measured kind is about:
// same space and direction first, then same space, then any access there.
std::optional<Range> access_range(const KernelModel& model, int line, LineKind kind) {
  const MemorySpace space = is_global(kind)   ? MemorySpace::Global
                            : is_shared(kind) ? MemorySpace::Shared
                                              : MemorySpace::Local;
  const AccessKind direction = is_store(kind) ? AccessKind::Store
                               : (kind == LineKind::GlobalOther || kind == LineKind::SharedOther)
                                   ? AccessKind::Atomic
                                   : AccessKind::Load;
  std::vector<Range> exact, same_space, any;
  for (const Function& f : model.functions) {
    for (const MemoryAccess& a : f.accesses) {
      if (!starts_on(a.range, line)) continue;
      any.push_back(a.range);
      // A generic pointer may point to either space: let it match.
      bool space_ok = a.space == space || a.space == MemorySpace::Generic;
      if (!space_ok) continue;
      same_space.push_back(a.range);
      if (a.kind == direction) exact.push_back(a.range);
    }
  }
  for (const auto* set : {&exact, &same_space, &any})
    if (!set->empty()) return span(*set);
  return std::nullopt;
}

std::optional<Range> condition_range(const KernelModel& model, int line) {
  for (const Function& f : model.functions)
    for (const Condition& c : f.conditions)
      if (starts_on(c.range, line)) return c.range;
  return std::nullopt;
}

const char* access_words(LineKind k) {
  switch (k) {
    case LineKind::GlobalLoad: return "global load";
    case LineKind::GlobalStore: return "global store";
    case LineKind::GlobalOther: return "global atomic/async access";
    case LineKind::SharedLoad: return "shared load";
    case LineKind::SharedStore: return "shared store";
    case LineKind::SharedOther: return "shared atomic/async access";
    case LineKind::LocalLoad: return "local load";
    case LineKind::LocalStore: return "local store";
    case LineKind::Branch: return "branch";
    case LineKind::All: return "line";
  }
  return "access";
}

std::string n_way(double ways) {
  double r = std::round(ways);
  if (std::fabs(ways - r) < 0.05) return std::to_string(static_cast<long long>(r)) + "-way";
  return format_ratio(ways) + "-way";
}

struct KernelContext {
  const Kernel* kernel = nullptr;
  double launches = 1;              // measured launches (per-launch figures divide by this)
  std::uint64_t global_sectors = 0; // kernel totals for shares
  std::uint64_t shared_wavefronts = 0;
  std::uint64_t memory_sectors = 0; // global + local
  std::string key;                  // Finding::kernel
  std::string name;                 // demangled
};

std::string measured_on(const Profile& p, const KernelContext& k) {
  std::string device = p.devices.empty() ? std::string("the GPU") : p.devices.front().name;
  auto n = static_cast<long long>(k.launches);
  return "Measured on " + device + " over " + std::to_string(n) +
         (n == 1 ? " launch" : " launches") + " of `" + k.name + "`";
}

std::string pcs_text(const LineMetrics& l) {
  std::string s;
  for (std::uint32_t pc : l.pcs) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s0x%x", s.empty() ? "" : " ", pc);
    s += buf;
  }
  return s;
}

Finding base_finding(const char* code, Severity severity, const std::string& file, Range range,
                     const LineMetrics& l, const KernelContext& k) {
  Finding f;
  f.code = code;
  f.severity = severity;
  f.source = "warplens-profile";
  f.location = {file, range};
  f.kernel = k.key;
  f.data.set("kind", std::string(to_string(l.kind)));
  f.data.set("line", std::int64_t(l.line));
  f.data.set("kernel_mangled", l.kernel);
  f.data.set("metric_launches", std::int64_t(k.launches));
  f.data.set("requests", std::int64_t(l.executed));
  f.data.set("pcs", pcs_text(l));
  return f;
}

std::optional<Finding> global_finding(const Profile& p, const LineMetrics& l, const KernelContext& k,
                                      const std::string& file, Range range,
                                      const MeasuredFindingsOptions& o) {
  if (l.sectors_ideal == 0 || l.executed == 0) return std::nullopt;
  const double ratio = double(l.sectors) / double(l.sectors_ideal);
  const double share = k.global_sectors ? double(l.sectors) / double(k.global_sectors) : 1.0;
  if (ratio < o.min_sector_excess || share < o.min_share) return std::nullopt;
  const double per_request = double(l.sectors) / double(l.executed);
  const double ideal_per_request = double(l.sectors_ideal) / double(l.executed);
  const double excess_per_launch = double(l.sectors - l.sectors_ideal) / k.launches;

  Finding f = base_finding(codes::kUncoalescedGlobal, Severity::Warning, file, range, l, k);
  f.message = "measured " + std::string(access_words(l.kind)) + ": " + format_ratio(per_request) +
              " sectors/request (ideal " + format_ratio(ideal_per_request) + "), " +
              format_ratio(ratio) + "× excess — " + format_count(excess_per_launch) +
              " excess sectors per launch, " + format_percent(share) +
              " of this kernel's global traffic";
  f.data.set("sectors", std::int64_t(l.sectors));
  f.data.set("sectors_ideal", std::int64_t(l.sectors_ideal));
  f.data.set("sectors_per_request", per_request);
  f.data.set("ideal_sectors_per_request", ideal_per_request);
  f.data.set("excess_ratio", ratio);
  f.data.set("excess_sectors_per_launch", excess_per_launch);
  f.data.set("share_of_kernel", share);
  f.explanation_markdown =
      "**" + measured_on(p, k) + "**\n\n"
      "| | measured | ideal |\n|---|---|---|\n"
      "| 32-byte sectors per warp request | " + format_ratio(per_request) + " | " +
      format_ratio(ideal_per_request) + " |\n"
      "| sectors per launch | " + format_count(double(l.sectors) / k.launches) + " | " +
      format_count(double(l.sectors_ideal) / k.launches) + " |\n\n"
      "The warp's 32 addresses of this " + access_words(l.kind) + " fall into " +
      format_ratio(ratio) + "× as many sectors as a perfectly coalesced access needs: " +
      format_percent(1.0 - 1.0 / ratio) +
      " of the sectors it moves are excess (Nsight Compute: \"excessive sectors\"). "
      "Make consecutive threads (threadIdx.x) touch consecutive addresses, or stage the data "
      "through shared memory.";
  return f;
}

std::optional<Finding> shared_finding(const Profile& p, const LineMetrics& l, const KernelContext& k,
                                      const std::string& file, Range range,
                                      const MeasuredFindingsOptions& o) {
  if (l.wavefronts_ideal == 0 || l.executed == 0) return std::nullopt;
  const double ways = double(l.wavefronts) / double(l.wavefronts_ideal);
  const double share = k.shared_wavefronts ? double(l.wavefronts) / double(k.shared_wavefronts) : 1.0;
  if (ways < o.min_conflict_ways || share < o.min_share) return std::nullopt;
  const double extra_per_launch = double(l.wavefronts - l.wavefronts_ideal) / k.launches;

  Finding f = base_finding(codes::kSharedBankConflict, Severity::Warning, file, range, l, k);
  f.message = "measured " + n_way(ways) + " bank conflict on this " + access_words(l.kind) +
              " (wavefronts " + format_ratio(ways) + "× ideal) — " +
              format_count(extra_per_launch) + " extra wavefronts per launch, " +
              format_percent(share) + " of this kernel's shared-memory wavefronts";
  f.data.set("wavefronts", std::int64_t(l.wavefronts));
  f.data.set("wavefronts_ideal", std::int64_t(l.wavefronts_ideal));
  f.data.set("conflict_ways", ways);
  f.data.set("wavefronts_per_request", double(l.wavefronts) / double(l.executed));
  f.data.set("extra_wavefronts_per_launch", extra_per_launch);
  f.data.set("share_of_kernel", share);
  f.explanation_markdown =
      "**" + measured_on(p, k) + "**\n\n"
      "| | measured | ideal |\n|---|---|---|\n"
      "| wavefronts per warp request | " + format_ratio(double(l.wavefronts) / double(l.executed)) +
      " | " + format_ratio(double(l.wavefronts_ideal) / double(l.executed)) + " |\n\n"
      "Shared memory serves one wavefront per cycle; this access needs " + format_ratio(ways) +
      "× the conflict-free number because several lanes hit different addresses in the same "
      "bank. Padding the array's inner dimension (e.g. `[32][33]`) or swizzling the index "
      "usually removes it.";
  return f;
}

std::optional<Finding> branch_finding(const Profile& p, const LineMetrics& l, const KernelContext& k,
                                      const std::string& file, Range range,
                                      const MeasuredFindingsOptions& o) {
  const std::uint64_t total = l.divergent + l.uniform;
  if (total == 0 || l.divergent == 0) return std::nullopt;
  const double fraction = double(l.divergent) / double(total);
  if (fraction < o.min_divergent_fraction) return std::nullopt;
  Finding f = base_finding(codes::kWarpDivergence, Severity::Information, file, range, l, k);
  f.message = "measured: " + format_percent(fraction) +
              " of this branch's warp executions diverge (" +
              format_count(double(l.divergent) / k.launches) + " of " +
              format_count(double(total) / k.launches) + " per launch)";
  f.data.set("divergent", std::int64_t(l.divergent));
  f.data.set("uniform", std::int64_t(l.uniform));
  f.data.set("divergent_fraction", fraction);
  f.explanation_markdown = "**" + measured_on(p, k) + "**\n\n"
                           "When a warp's active threads take different targets at this branch, "
                           "the warp runs both paths one after the other with part of its lanes "
                           "idle. Make the condition uniform across each warp of 32 threads "
                           "(e.g. depend on `threadIdx.x / 32`) or move divergent work out of "
                           "hot loops.";
  return f;
}

std::optional<Finding> local_finding(const Profile& p, const LineMetrics& l, const KernelContext& k,
                                     const std::string& file, Range range,
                                     const MeasuredFindingsOptions& o) {
  if (l.sectors == 0) return std::nullopt;
  const double share = k.memory_sectors ? double(l.sectors) / double(k.memory_sectors) : 1.0;
  if (share < o.min_share) return std::nullopt;
  Finding f = base_finding(codes::kRegisterSpill, Severity::Information, file, range, l, k);
  f.message = "measured " + std::string(access_words(l.kind)) + ": " +
              format_count(double(l.sectors) / k.launches) +
              " local-memory sectors per launch (register spills or a local array) — " +
              format_percent(share) + " of this kernel's memory traffic";
  f.data.set("local_sectors", std::int64_t(l.sectors));
  f.data.set("share_of_kernel", share);
  f.explanation_markdown = "**" + measured_on(p, k) + "**\n\n"
                           "Local memory is per-thread memory in DRAM (cached in L1/L2): the "
                           "compiler puts spilled registers and dynamically indexed local "
                           "arrays there. Reduce register pressure (fewer live values, "
                           "`__launch_bounds__`) or index local arrays with constants.";
  return f;
}

}  // namespace

std::vector<Finding> measured_findings(const Profile& p, const MeasuredFindingsRequest& request,
                                       const MeasuredFindingsOptions& options) {
  std::map<std::string, KernelContext> kernels;
  auto context = [&](const std::string& mangled) -> const KernelContext& {
    auto [it, inserted] = kernels.try_emplace(mangled);
    KernelContext& c = it->second;
    if (!inserted) return c;
    c.kernel = p.find_kernel(mangled);
    c.name = c.kernel ? c.kernel->name : demangle(mangled);
    c.key = c.name;
    if (request.model)
      if (const Function* f = find_model_kernel(*request.model, c.name)) c.key = f->key;
    if (c.kernel && c.kernel->metric_launches > 0) c.launches = double(c.kernel->metric_launches);
    if (c.kernel && c.kernel->counters) {
      c.global_sectors = c.kernel->counters->global_sectors;
      c.shared_wavefronts = c.kernel->counters->shared_wavefronts;
      c.memory_sectors = c.kernel->counters->global_sectors + c.kernel->counters->local_sectors;
    } else {
      for (const LineMetrics& l : p.lines) {
        if (l.kernel != mangled) continue;
        if (is_global(l.kind)) c.global_sectors += l.sectors;
        if (is_shared(l.kind)) c.shared_wavefronts += l.wavefronts;
        if (is_global(l.kind) || is_local(l.kind)) c.memory_sectors += l.sectors;
      }
    }
    return c;
  };

  std::map<std::string, bool> file_matches;
  std::vector<Finding> out;
  for (const LineMetrics& l : p.lines) {
    if (l.line <= 0 || l.kind == LineKind::All) continue;
    if (!request.file.empty()) {
      auto [it, inserted] = file_matches.try_emplace(l.file, false);
      if (inserted) it->second = same_source_file(p, l.file, request.file);
      if (!it->second) continue;
    }
    const std::string& file = request.file.empty() ? l.file : request.file;
    const int line = l.line - 1;  // engine positions are 0-based
    std::optional<Range> precise;
    if (request.model)
      precise = l.kind == LineKind::Branch ? condition_range(*request.model, line)
                                           : access_range(*request.model, line, l.kind);
    Range range = precise ? *precise : whole_line(line, request.text);
    const KernelContext& k = context(l.kernel);

    std::optional<Finding> f;
    if (is_global(l.kind)) f = global_finding(p, l, k, file, range, options);
    else if (is_shared(l.kind)) f = shared_finding(p, l, k, file, range, options);
    else if (is_local(l.kind)) f = local_finding(p, l, k, file, range, options);
    else if (l.kind == LineKind::Branch) f = branch_finding(p, l, k, file, range, options);
    if (f) out.push_back(std::move(*f));
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.location.file != b.location.file) return a.location.file < b.location.file;
    return a.location.range.start < b.location.range.start;
  });
  return out;
}

}  // namespace warplens::profile
