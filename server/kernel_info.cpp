#include "server/kernel_info.h"

#include <set>
#include <sstream>

namespace warplens::server {

std::vector<const LaunchSite*> launches_of(const KernelModel& model, const Function& kernel) {
  std::vector<const LaunchSite*> out;
  for (const auto& l : model.launches) {
    bool same = !l.kernel_key.empty() ? l.kernel_key == kernel.key : l.kernel == kernel.name;
    if (same) out.push_back(&l);
  }
  return out;
}

const Function* kernel_at(const KernelModel& model, Position position, Range* where) {
  for (const auto& f : model.functions)
    if (f.kind == FunctionKind::Kernel && f.name_range.contains_inclusive(position)) {
      if (where) *where = f.name_range;
      return &f;
    }
  for (const auto& l : model.launches) {
    if (!l.range.contains(position)) continue;
    for (const auto& f : model.functions) {
      if (f.kind != FunctionKind::Kernel) continue;
      if (l.kernel_key.empty() ? f.name == l.kernel : f.key == l.kernel_key) {
        if (where) *where = l.range;
        return &f;
      }
    }
  }
  return nullptr;
}

std::string describe_dim3(const Dim3Value& value) {
  if (value.value) {
    const auto& v = *value.value;
    return std::to_string(v[0]) + "×" + std::to_string(v[1]) + "×" + std::to_string(v[2]);
  }
  return value.spelling.empty() ? "?" : "`" + value.spelling + "`";
}

namespace {

// "heavy(const float *in, float *out, int n)": the signature with the
// parameters' names (Function::signature has their types only).
std::string named_signature(const Function& k) {
  if (k.params.empty()) return k.signature.empty() ? k.name + "()" : k.signature;
  std::string s = "void " + k.name + "(";
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    std::string type = p.type;
    bool glue = !type.empty() && (type.back() == '*' || type.back() == '&');
    s += (i ? ", " : "") + type + (p.name.empty() ? "" : (glue ? "" : " ") + p.name);
  }
  return s + ")";
}

}  // namespace

// Short: an editor float shows the resources (the occupancy feature's
// section) right after it, and Neovim's float is only so tall.
std::string kernel_markdown(const KernelModel& model, const Function& k) {
  std::ostringstream md;
  md << "**kernel** `" << k.name << "`";
  if (k.is_template) md << " (template)";
  if (!k.template_args.empty()) md << " instantiated as `" << k.name << k.template_args << "`";
  md << "\n\n```cuda\n__global__ " << named_signature(k) << "\n```\n";
  if (k.launch_bounds) {
    md << "\nLaunch bounds: ";
    if (k.launch_bounds->max_threads) md << *k.launch_bounds->max_threads << " threads per block";
    if (k.launch_bounds->min_blocks) md << ", at least " << *k.launch_bounds->min_blocks << " blocks per SM";
    md << "\n";
  }
  if (!k.shared_arrays.empty()) {
    md << "\nShared memory:";
    bool first = true;
    for (const auto& s : k.shared_arrays) {
      md << (first ? " " : ", ") << "`" << s.name << "` " << (s.is_extern ? "extern " : "") << "`" << s.element_type;
      first = false;
      for (auto d : s.dims) md << "[" << (d > 0 ? std::to_string(d) : "") << "]";
      md << "`";
      std::int64_t elements = 1;
      bool known = !s.dims.empty();
      for (auto d : s.dims) {
        known = known && d > 0;
        elements *= d;
      }
      if (known && s.element_bytes > 0) md << " (" << elements * s.element_bytes << " bytes)";
    }
    md << "\n";
  }
  auto launches = launches_of(model, k);
  if (launches.empty()) {
    md << "\nNo launch in this file: the block size comes from `warplens.kernelBlockSizes`, "
          "`warplens.defaultBlockSize` or `__launch_bounds__`.\n";
  } else {
    constexpr std::size_t kShown = 3;
    for (std::size_t i = 0; i < launches.size() && i < kShown; ++i) {
      const LaunchSite* l = launches[i];
      md << (i ? "\n" : "\n") << "Launched at line " << l->range.start.line + 1 << ": grid " << describe_dim3(l->grid)
         << ", block " << describe_dim3(l->block);
      if (l->shared_bytes && *l->shared_bytes)
        md << ", " << *l->shared_bytes << " bytes dynamic shared memory";
      else if (!l->shared_bytes_spelling.empty())
        md << ", dynamic shared memory `" << l->shared_bytes_spelling << "`";
      if (!l->caller.empty()) md << " (in `" << l->caller << "`)";
      if (l->in_loop) md << ", inside a loop";
      md << "\n";
    }
    if (launches.size() > kShown) md << "\n…and " << launches.size() - kShown << " more launches\n";
  }
  return md.str();
}

std::string launch_summary(const KernelModel& model, const Function& k) {
  auto launches = launches_of(model, k);
  std::ostringstream s;
  if (launches.empty()) {
    s << "no launch in this file";
  } else {
    s << "launched " << launches.size() << "×";
    std::set<std::string> blocks;
    for (const auto* l : launches) blocks.insert(describe_dim3(l->block));
    s << " · block ";
    bool first = true;
    for (const auto& b : blocks) {
      s << (first ? "" : ", ") << b;
      first = false;
    }
  }
  if (k.launch_bounds && k.launch_bounds->max_threads)
    s << " · __launch_bounds__(" << *k.launch_bounds->max_threads << ")";
  return s.str();
}

}  // namespace warplens::server
