// The shuffle helpers of warp-per-row (row_shuffle_helpers.h).
#include "agent/rewrites/row_shuffle_helpers.h"

namespace warplens::agent::rw {

LaneSpan lane_span(std::int64_t lanes, bool contiguous) {
  if (lanes >= 32) return {16, 1, false, "the 32 lanes of a warp"};
  if (contiguous)
    return {static_cast<int>(lanes / 2), 1, true,
            "the " + std::to_string(lanes) + " neighbouring lanes of a row (named by mask)"};
  const std::int64_t stride = 32 / lanes;
  return {16, static_cast<int>(stride), true,
          "the " + std::to_string(lanes) + " lanes of a row (lanes " + std::to_string(stride) +
              " apart in the warp, named by mask)"};
}

// A butterfly over the lanes of `span`, the result in each of them.
std::string shuffle_helper(const std::string& name, Combine op, const LaneSpan& span) {
  const std::string mask = span.masked ? "mask" : "0xffffffffu";
  const std::string combine =
      op == Combine::Add     ? "v += __shfl_xor_sync(" + mask + ", v, offset)"
      : op == Combine::Max   ? "v = max(v, __shfl_xor_sync(" + mask + ", v, offset))"
      : op == Combine::Min   ? "v = min(v, __shfl_xor_sync(" + mask + ", v, offset))"
      : op == Combine::MaxIf ? "{\n    const T o = __shfl_xor_sync(" + mask + ", v, offset);\n    if (o > v) v = o;\n  }"
                             : "{\n    const T o = __shfl_xor_sync(" + mask + ", v, offset);\n    if (o < v) v = o;\n  }";
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max || op == Combine::MaxIf ? "maximum" : "minimum";
  if (span.masked)
    return std::string("// Added by warplens (warp-per-row): ") + what + " over " + span.describe + ", in each of them." +
           "\ntemplate <typename T>\n__device__ __forceinline__ T " + name + "(T v, unsigned mask) {\n  for (int offset = " +
           std::to_string(span.first_offset) + "; offset >= " + std::to_string(span.last_offset) +
           "; offset >>= 1) " + combine + ";\n  return v;\n}\n\n";
  return std::string("// Added by warplens (warp-per-row): ") + what +
         " over the 32 lanes of a warp, in every lane.\ntemplate <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  for (int offset = 16; offset > 0; offset >>= 1) " + combine + ";\n  return v;\n}\n\n";
}

// The same over the whole block (blockDim.x a multiple of 32, at most 1024):
// the warps' results meet in one shared slot per warp, every warp reduces
// the slots. The leading barrier protects the slots from the previous call.
std::string block_helper(const std::string& name, const std::string& warp, Combine op) {
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max || op == Combine::MaxIf ? "maximum" : "minimum";
  const std::string other = op == Combine::Add ? "T(0)" : "wl_slot[0]";
  return std::string("// Added by warplens (warp-per-row): ") + what +
         " over the threads of a block, in every thread.\ntemplate <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  __shared__ T wl_slot[32];\n  v = " + warp +
         "(v);\n  __syncthreads();\n  if (threadIdx.x % 32 == 0) wl_slot[threadIdx.x / 32] = v;\n  __syncthreads();\n"
         "  v = threadIdx.x % 32 < blockDim.x / 32 ? wl_slot[threadIdx.x % 32] : " + other + ";\n  return " + warp +
         "(v);\n}\n\n";
}

// An online softmax's (maximum, rescaled sum) pair over the lanes of `span`,
// in each of them: the larger maximum wins and each sum is rescaled to it. A
// sum whose maximum is the winner is taken as it is (EXP(0) is exactly 1), so a lane that saw no
// element (its maximum still the start, -inf, and its sum 0) never computes
// -inf - -inf.
std::string online_warp_helper(const std::string& name, const Accumulator& sum, const LaneSpan& span) {
  const std::string T = sum.var->getType().getUnqualifiedType().getAsString();
  const std::string mask = span.masked ? "mask" : "0xffffffffu";
  const std::string X = sum.function, E = sum.exp_function;
  return "// Added by warplens (warp-per-row): an online softmax's (maximum, rescaled sum) over " + span.describe +
         ", in each of them.\n__device__ __forceinline__ void " + name +
         "(" + T + "& m, " + T + "& s" + (span.masked ? ", unsigned mask" : "") +
         ") {\n  for (int offset = " + std::to_string(span.first_offset) + "; offset >= " +
         std::to_string(span.last_offset) + "; offset >>= 1) {\n    const " + T +
         " mo = __shfl_xor_sync(" + mask + ", m, offset);\n    const " + T + " so = __shfl_xor_sync(" + mask +
         ", s, offset);\n    const " + T + " mn = " + X + "(m, mo);\n    s = (m == mn ? s : s * " + E +
         "(m - mn)) + (mo == mn ? so : so * " + E + "(mo - mn));\n    m = mn;\n  }\n}\n\n";
}

// An arg-max/arg-min's (value, index) pair over the lanes of `span`, in
// each of them: the better value wins, a tie goes to the earlier index
// (First) or the later (Last). Every lane's pair is the start pair or one of
// its elements taken by the kernel's own comparison (never a NaN element),
// so without a NaN start the choice is a total order and every lane ends
// with the same pair; with a NaN start no lane ever left it.
std::string arg_warp_helper(const std::string& name, Combine op, const LaneSpan& span) {
  const bool max = op == Combine::ArgMaxFirst || op == Combine::ArgMaxLast;
  const bool first = op == Combine::ArgMaxFirst || op == Combine::ArgMinFirst;
  const std::string mask = span.masked ? "mask" : "0xffffffffu";
  return std::string("// Added by warplens (warp-per-row): the ") + (max ? "largest" : "smallest") + " value and its " +
         (first ? "first" : "last") + " index over " + span.describe + ", in each of them.\n"
         "template <typename T, typename I>\n__device__ __forceinline__ void " + name + "(T& v, I& i" +
         (span.masked ? ", unsigned mask" : "") + ") {\n  for (int offset = " + std::to_string(span.first_offset) +
         "; offset >= " + std::to_string(span.last_offset) + "; offset >>= 1) {\n    const T ov = __shfl_xor_sync(" +
         mask + ", v, offset);\n    const I oi = __shfl_xor_sync(" + mask + ", i, offset);\n    if (ov " +
         (max ? ">" : "<") + " v || (ov == v && oi " + (first ? "<" : ">") +
         " i)) {\n      v = ov;\n      i = oi;\n    }\n  }\n}\n\n";
}

// The same over a block: the warps' pairs meet in shared slots; padding
// lanes repeat slot 0, which cannot change the choice.
std::string arg_block_helper(const std::string& name, const std::string& warp, Combine op) {
  const bool max = op == Combine::ArgMaxFirst || op == Combine::ArgMaxLast;
  return std::string("// Added by warplens (warp-per-row): the ") + (max ? "largest" : "smallest") +
         " value and its index over the threads of a block, in every thread.\ntemplate <typename T, typename I>\n"
         "__device__ __forceinline__ void " + name + "(T& v, I& i) {\n  __shared__ T wl_slot_v[32];\n"
         "  __shared__ I wl_slot_i[32];\n  " + warp + "(v, i);\n  __syncthreads();\n  if (threadIdx.x % 32 == 0) {\n"
         "    wl_slot_v[threadIdx.x / 32] = v;\n    wl_slot_i[threadIdx.x / 32] = i;\n  }\n  __syncthreads();\n"
         "  const bool real = threadIdx.x % 32 < blockDim.x / 32;\n  v = real ? wl_slot_v[threadIdx.x % 32] : "
         "wl_slot_v[0];\n  i = real ? wl_slot_i[threadIdx.x % 32] : wl_slot_i[0];\n  " + warp + "(v, i);\n}\n\n";
}

// An online softmax pair over a block: each warp's pair in a shared slot,
// every warp combines the slots (padding lanes take slot 0's maximum with a
// zero sum).
std::string online_block_helper(const std::string& name, const std::string& warp, const Accumulator& sum) {
  const std::string T = sum.var->getType().getUnqualifiedType().getAsString();
  return "// Added by warplens (warp-per-row): an online softmax's (maximum, rescaled sum) over the threads of a "
         "block, in every thread.\n__device__ __forceinline__ void " + name + "(" + T + "& m, " + T +
         "& s) {\n  __shared__ " + T + " wl_slot_m[32], wl_slot_s[32];\n  " + warp +
         "(m, s);\n  __syncthreads();\n  if (threadIdx.x % 32 == 0) {\n    wl_slot_m[threadIdx.x / 32] = m;\n"
         "    wl_slot_s[threadIdx.x / 32] = s;\n  }\n  __syncthreads();\n  const bool real = threadIdx.x % 32 < "
         "blockDim.x / 32;\n  m = real ? wl_slot_m[threadIdx.x % 32] : wl_slot_m[0];\n  s = real ? "
         "wl_slot_s[threadIdx.x % 32] : " + T + "(0);\n  " + warp + "(m, s);\n}\n\n";
}

}  // namespace warplens::agent::rw
