#include "agent/verifier/poison.h"

#include <algorithm>
#include <cstring>

namespace warplens::verifier {

const char* to_string(Poison p) { return p == Poison::A ? "A (0xff bytes)" : "B (NaN payload 0xa5)"; }

namespace {
// Pattern B per element type, little-endian. Every byte differs from 0xFF.
std::uint64_t pattern_b(ElementType t) {
  switch (t) {
    case ElementType::F64: return 0x7ffca5a5a5a5a5a5ULL;
    case ElementType::F32: return 0x7fe5a5a5ULL;
    case ElementType::F16: return 0x7ea5ULL;
    case ElementType::BF16: return 0x7fe5ULL;
    default: return 0xa5a5a5a5a5a5a5a5ULL;
  }
}
}  // namespace

void fill_poison(std::uint8_t* dst, std::uint64_t bytes, BufferLayout layout, Poison which) {
  if (which == Poison::A) {
    std::memset(dst, 0xff, bytes);
    return;
  }
  std::memset(dst, 0xa5, bytes);
  if (!is_floating(layout.type)) return;
  const std::uint64_t size = static_cast<std::uint64_t>(element_size(layout.type));
  const std::uint64_t pattern = pattern_b(layout.type);
  for (std::uint64_t b = std::min(layout.phase, bytes); b + size <= bytes; b += size)
    std::memcpy(dst + b, &pattern, size);
}

std::vector<std::uint8_t> make_poison(std::uint64_t bytes, BufferLayout layout, Poison which) {
  std::vector<std::uint8_t> out(bytes);
  fill_poison(out.data(), bytes, layout, which);
  return out;
}

}  // namespace warplens::verifier
