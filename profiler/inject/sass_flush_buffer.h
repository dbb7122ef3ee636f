// Memory for one cuptiSassMetricsFlushData call, and the conversion of what
// CUPTI wrote there into plain profile::SassRecord.
//
// Layout as in NVIDIA's sass_metrics sample and the reference probe: R
// zeroed records, each pointing at its own value slots. CUPTI documents K
// (numOfInstances) slots per record; like the probe, every record gets
// K x (number of configured metrics) slots, so a CUPTI that wrote one value
// per configured metric into each record could not overrun the buffer.
// take() reads the documented K and counts any extra slot CUPTI filled, so
// such a layout would be reported rather than silently misread.
//
// Header-only and CUPTI-headers-only (no libcupti calls): the unit tests
// fill a buffer the way CUPTI does and run it through the same conversion.
#pragma once

#include <cupti_sass_metrics.h>

#include <cstdlib>
#include <vector>

#include "profiler/sass_records.h"

namespace warplens::inject {

class SassFlushBuffer {
 public:
  SassFlushBuffer(std::size_t records, std::size_t instances, std::size_t metrics)
      : instances_(instances),
        slots_per_record_(instances * (metrics > 0 ? metrics : 1)),
        records_(records),  // value-initialised: structSize, pPriv, names all zero
        values_(records * slots_per_record_) {
    // structSize stays 0, as in the probe that worked on the H200.
    for (std::size_t i = 0; i < records; ++i) records_[i].pInstanceValues = &values_[i * slots_per_record_];
  }
  SassFlushBuffer(const SassFlushBuffer&) = delete;
  SassFlushBuffer& operator=(const SassFlushBuffer&) = delete;
  ~SassFlushBuffer() { free_names(); }

  CUpti_SassMetrics_Data* data() { return records_.data(); }
  std::size_t records() const { return records_.size(); }
  std::size_t instances() const { return instances_; }

  // Plain copies of the records (K values each); frees the function names
  // CUPTI allocated (the caller owns them, as NVIDIA's sample shows).
  // `extra_slots_filled` counts slots beyond K that CUPTI wrote to.
  std::vector<profile::SassRecord> take(std::size_t* extra_slots_filled = nullptr) {
    std::vector<profile::SassRecord> out;
    out.reserve(records_.size());
    std::size_t extra = 0;
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const CUpti_SassMetrics_Data& d = records_[i];
      profile::SassRecord r;
      if (d.functionName) r.function = d.functionName;
      r.pc = d.pcOffset;
      r.cubin_crc = d.cubinCrc;
      r.function_index = d.functionIndex;
      // CUPTI might point pInstanceValues elsewhere; read where it points.
      const CUpti_SassMetrics_InstanceValue* v = d.pInstanceValues;
      if (v) {
        r.values.reserve(instances_);
        for (std::size_t k = 0; k < instances_; ++k) r.values.push_back({v[k].metricId, v[k].value});
      }
      const CUpti_SassMetrics_InstanceValue* own = &values_[i * slots_per_record_];
      if (v == own)
        for (std::size_t k = instances_; k < slots_per_record_; ++k)
          if (own[k].metricId != 0 || own[k].value != 0) ++extra;
      out.push_back(std::move(r));
    }
    free_names();
    if (extra_slots_filled) *extra_slots_filled = extra;
    return out;
  }

 private:
  void free_names() {
    for (CUpti_SassMetrics_Data& d : records_) {
      std::free(const_cast<char*>(d.functionName));
      d.functionName = nullptr;
    }
  }

  std::size_t instances_;
  std::size_t slots_per_record_;
  std::vector<CUpti_SassMetrics_Data> records_;
  std::vector<CUpti_SassMetrics_InstanceValue> values_;
};

}  // namespace warplens::inject
