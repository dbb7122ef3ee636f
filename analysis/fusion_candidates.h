// The data-flow half of fusable-intermediate: in each host function, the
// launches that write a buffer (producer) and the next launch that reads it
// (consumer), with everything that decides whether the pair can be fused.
// fusion.cpp turns these into findings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_effects.h"
#include "analysis/kernel_model.h"

namespace warplens {

enum class FusionMapping : std::uint8_t {
  SameIndex,            // the consumer's thread reads the element the same producer thread wrote
  ElementwiseProducer,  // the producer is element-wise: its value at any element can be recomputed
};

// Why a pair cannot be proven fusable. Each comes with a sentence and, when
// there is one, the place that causes it.
struct FusionDoubt {
  std::string text;                   // "`tmp` is passed to `helper`, which may read it"
  std::optional<Range> where;
};

struct FusionCandidate {
  const HostFunction* host = nullptr;
  int buffer = -1;                    // the buffer passed to the producer
  std::vector<int> aliases;           // other buffers that may hold the same address
  int producer = -1, consumer = -1;   // event indices (Launch)
  int allocation = -1;                // the buffer's last Allocate before the producer, or -1
  int death = -1;                     // the event after which the buffer is dead (Free, ScopeEnd, ...), or -1
  const Function* producer_kernel = nullptr;
  const Function* consumer_kernel = nullptr;
  int producer_param = -1, consumer_param = -1;
  const ParameterAccess* write = nullptr;  // the producer's store to the buffer
  const ParameterAccess* read = nullptr;   // the consumer's first load of it
  FusionMapping mapping = FusionMapping::SameIndex;
  int distinct_reads = 1;             // distinct offsets the consumer reads the buffer at
  std::vector<FusionDoubt> doubts;    // empty: proven
};

// Kernel effects, computed once per kernel of the model.
class KernelEffectsCache {
 public:
  explicit KernelEffectsCache(const KernelModel& model) : model_(model) {}
  const KernelEffects* of(const Function* kernel);

 private:
  const KernelModel& model_;
  std::map<const Function*, KernelEffects> cache_;
};

std::vector<FusionCandidate> find_fusion_candidates(const KernelModel& model, const HostFunction& host,
                                                    KernelEffectsCache& effects);

// "" for the default stream, whatever its spelling (0, nullptr, cudaStreamLegacy).
std::string normalized_stream(const std::string& spelling);

}  // namespace warplens
