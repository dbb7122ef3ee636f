#include "profiler/kernel_summary.h"

#include "profiler/demangle.h"
#include "profiler/units.h"

namespace warplens::profile {
namespace {

// Parameters in a demangled "name<...>(a, b<c, d>, e)": commas at nesting
// depth 0 of the parameter list, plus one; "()" and "(void)" have none.
int parameter_count(const std::string& demangled) {
  std::size_t open = std::string::npos;
  int angle = 0;
  for (std::size_t i = 0; i < demangled.size() && open == std::string::npos; ++i) {
    if (demangled[i] == '<') ++angle;
    else if (demangled[i] == '>') --angle;
    else if (demangled[i] == '(' && angle == 0) open = i;
  }
  if (open == std::string::npos) return -1;
  int depth = 0, commas = 0;
  std::string inner;
  for (std::size_t i = open + 1; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == ')' && depth == 0) break;
    if (c == '<' || c == '(') ++depth;
    else if (c == '>' || c == ')') --depth;
    else if (c == ',' && depth == 0) ++commas;
    inner += c;
  }
  if (inner.find_first_not_of(' ') == std::string::npos || inner == "void") return 0;
  return commas + 1;
}

std::string normalise(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

}  // namespace

const Function* find_model_kernel(const KernelModel& model, const std::string& demangled) {
  const std::string base = base_name(demangled);
  std::vector<const Function*> candidates;
  for (const Function& f : model.functions)
    if (f.kind == FunctionKind::Kernel && f.name == base) candidates.push_back(&f);
  if (candidates.size() <= 1) return candidates.empty() ? nullptr : candidates.front();
  const std::string flat = normalise(demangled);
  const int params = parameter_count(demangled);
  for (const Function* f : candidates)
    if (!f->template_args.empty() && flat.find(normalise(f->template_args)) != std::string::npos)
      return f;
  for (const Function* f : candidates)
    if (int(f->params.size()) == params) return f;
  return candidates.front();
}

std::vector<KernelSummary> kernel_summaries(const Profile& p, const KernelModel* model) {
  const double peak = p.devices.empty() ? 0.0 : p.devices.front().peak_bandwidth_gbs;
  std::vector<KernelSummary> out;
  for (const Kernel& k : p.kernels) {
    KernelSummary s;
    s.name = k.name;
    s.mangled = k.mangled;
    s.launches = k.launch_count;
    s.metric_launches = k.metric_launches;
    s.timed_launches = k.timing.launches;
    s.peak_gbs = peak;
    if (k.timing.launches > 0) s.mean_ns = k.timing.mean_ns();
    if (k.counters && k.metric_launches > 0 && k.counters->global_sectors > 0) {
      const double launches = double(k.metric_launches);
      s.effective_bytes_per_launch = double(k.counters->global_sectors_ideal) * 32.0 / launches;
      s.requested_bytes_per_launch = double(k.counters->global_sectors) * 32.0 / launches;
    }
    if (s.mean_ns && s.effective_bytes_per_launch && *s.mean_ns > 0) {
      s.effective_gbs = *s.effective_bytes_per_launch / *s.mean_ns;  // bytes per ns = GB/s
      s.requested_gbs = *s.requested_bytes_per_launch / *s.mean_ns;
      if (peak > 0) s.fraction_of_peak = *s.effective_gbs / peak;
    }
    if (model) s.function = find_model_kernel(*model, k.name);

    if (s.mean_ns) {
      s.title = format_duration_ns(*s.mean_ns) + "/launch";
    } else if (k.metric_launches > 0) {
      s.title = "not timed (no timing pass)";
    } else {
      s.title = "not timed";
    }
    if (s.effective_gbs) {
      s.title += " · " + format_bandwidth_gbs(*s.effective_gbs) + " effective";
      if (s.fraction_of_peak)
        s.title += " (" + format_percent(*s.fraction_of_peak) + " of " + format_bandwidth_gbs(peak) +
                   " peak)";
    }
    s.title += " · " + std::to_string(k.launch_count) + (k.launch_count == 1 ? " launch" : " launches");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace warplens::profile
