// Element types of kernel buffers and scalars: what a comparison, a poison
// pattern or a fresh input needs to know about the bytes of an allocation.
// Host-only bit-level conversions for fp16/bf16 (no cuda_fp16.h needed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warplens::verifier {

enum class ElementType : std::uint8_t {
  Bytes,  // unknown or mixed: compared bit-exactly, never re-drawn
  F64, F32, F16, BF16,
  I8, U8, I16, U16, I32, U32, I64, U64,
  Bool,
};

int element_size(ElementType t);      // Bytes -> 1
bool is_floating(ElementType t);
const char* to_string(ElementType t);  // "f32", "bytes", ...
std::optional<ElementType> element_type_from_string(std::string_view s);

// Maps a C/CUDA scalar or vector type name, already stripped of qualifiers,
// pointers and `struct`, to its element type: "float4" -> F32,
// "unsigned int" -> U32, "__nv_bfloat162" -> BF16, "size_t" -> U64.
// Unknown names (structs, template parameters) -> Bytes.
ElementType element_type_of_c_type(std::string_view base_type);

// Bit-level conversions (round to nearest even when narrowing).
double half_bits_to_double(std::uint16_t bits);
double bf16_bits_to_double(std::uint16_t bits);
std::uint16_t double_to_half_bits(double v);
std::uint16_t double_to_bf16_bits(double v);

// Reads / writes one element at p (unaligned access is fine).
double load_as_double(ElementType t, const std::uint8_t* p);
void store_from_double(ElementType t, std::uint8_t* p, double v);
bool element_is_nan(ElementType t, const std::uint8_t* p);

// Human-readable value of one element for reports: "0.123456789", "-3",
// "0x7fc00000 (NaN)", bytes as hex.
std::string format_element(ElementType t, const std::uint8_t* p);

}  // namespace warplens::verifier
