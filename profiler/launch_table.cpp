#include "profiler/launch_table.h"

#include <algorithm>

#include "profiler/demangle.h"

namespace warplens::profile {

void LaunchTable::add(const std::string& mangled, std::uint32_t correlation_id,
                      const Launch& launch) {
  PerKernel& k = kernels_[mangled];
  if (stored_ >= max_records_) {
    // Beyond the cap only durations are kept. Such late launches are
    // instrumented only if the callback said so by id.
    overflowed_ = true;
    ++k.overflow_launches;
    if (!instrumented_ids_.count(correlation_id)) k.overflow_timing.add(launch.duration_ns);
    return;
  }
  k.records.push_back({correlation_id, launch});
  ++stored_;
}

void LaunchTable::mark_instrumented(const std::string& mangled,
                                    const std::vector<std::uint32_t>& correlation_ids,
                                    std::uint64_t launch_index) {
  for (std::uint32_t id : correlation_ids)
    if (id != 0) instrumented_ids_.insert(id);
  kernels_[mangled].instrumented_indices.insert(launch_index);
}

std::vector<Kernel> LaunchTable::kernels(int launch_records, const std::string& pass,
                                         std::vector<Warning>* warnings) const {
  std::vector<Kernel> out;
  for (const auto& [mangled, pk] : kernels_) {
    if (pk.records.empty() && pk.overflow_launches == 0) continue;  // measured, never completed
    std::vector<Record> records = pk.records;
    std::sort(records.begin(), records.end(),
              [](const Record& a, const Record& b) { return a.correlation_id < b.correlation_id; });

    std::size_t matched = 0;
    for (const Record& r : records) matched += instrumented_ids_.count(r.correlation_id);
    bool by_index = matched < pk.instrumented_indices.size();
    if (by_index && warnings) {
      warnings->push_back(
          {"launch-correlation",
           "could not match " + std::to_string(pk.instrumented_indices.size() - matched) +
               " instrumented launch(es) of " + demangle(mangled) +
               " to activity records by correlation id; marked them by launch order instead"});
    }

    Kernel k;
    k.mangled = mangled;
    k.name = demangle(mangled);
    k.launch_count = records.size() + pk.overflow_launches;
    for (std::size_t i = 0; i < records.size(); ++i) {
      Launch l = records[i].launch;
      l.index = i;
      l.pass = pass;
      l.instrumented = by_index ? pk.instrumented_indices.count(i) > 0
                                : instrumented_ids_.count(records[i].correlation_id) > 0;
      if (!l.instrumented) k.timing.add(l.duration_ns);
      if (launch_records < 0 || i < std::size_t(launch_records)) k.launches.push_back(std::move(l));
    }
    k.timing.merge(pk.overflow_timing);
    out.push_back(std::move(k));
  }
  if (overflowed_ && warnings)
    warnings->push_back({"launch-records-capped",
                         "more than " + std::to_string(max_records_) +
                             " kernel launches: later launches were timed but not numbered"});
  return out;
}

}  // namespace warplens::profile
