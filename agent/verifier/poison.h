// Poison patterns written into every output buffer before a run, so that an
// output the kernel does not write shows up instead of passing on stale
// memory. Two different patterns (A and B) tell "written" from "left alone":
// a byte is unwritten only if it holds A after a run that started from A and
// B after a run that started from B. No byte of B equals the byte of A at the
// same position, so a written byte can never look unwritten in both runs.
#pragma once

#include <cstdint>
#include <vector>

#include "agent/verifier/compare.h"

namespace warplens::verifier {

enum class Poison : std::uint8_t {
  A,  // all bytes 0xFF: NaN for every float type, -1 for signed integers
  B,  // a quiet NaN with payload for float types, 0xA5 bytes otherwise
};
const char* to_string(Poison p);

void fill_poison(std::uint8_t* dst, std::uint64_t bytes, BufferLayout layout, Poison which);
std::vector<std::uint8_t> make_poison(std::uint64_t bytes, BufferLayout layout, Poison which);

}  // namespace warplens::verifier
