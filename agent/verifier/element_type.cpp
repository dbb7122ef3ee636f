#include "agent/verifier/element_type.h"

#include "agent/verifier/element_ops.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

namespace warplens::verifier {

int element_size(ElementType t) {
  switch (t) {
    case ElementType::Bytes: return 1;
    case ElementType::F64: return 8;
    case ElementType::F32: return 4;
    case ElementType::F16: return 2;
    case ElementType::BF16: return 2;
    case ElementType::I8: return 1;
    case ElementType::U8: return 1;
    case ElementType::I16: return 2;
    case ElementType::U16: return 2;
    case ElementType::I32: return 4;
    case ElementType::U32: return 4;
    case ElementType::I64: return 8;
    case ElementType::U64: return 8;
    case ElementType::Bool: return 1;
  }
  return 1;
}

bool is_floating(ElementType t) {
  return t == ElementType::F64 || t == ElementType::F32 || t == ElementType::F16 || t == ElementType::BF16;
}

const char* to_string(ElementType t) {
  switch (t) {
    case ElementType::Bytes: return "bytes";
    case ElementType::F64: return "f64";
    case ElementType::F32: return "f32";
    case ElementType::F16: return "f16";
    case ElementType::BF16: return "bf16";
    case ElementType::I8: return "i8";
    case ElementType::U8: return "u8";
    case ElementType::I16: return "i16";
    case ElementType::U16: return "u16";
    case ElementType::I32: return "i32";
    case ElementType::U32: return "u32";
    case ElementType::I64: return "i64";
    case ElementType::U64: return "u64";
    case ElementType::Bool: return "bool";
  }
  return "bytes";
}

std::optional<ElementType> element_type_from_string(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(ElementType::Bool); ++i) {
    auto t = static_cast<ElementType>(i);
    if (s == to_string(t)) return t;
  }
  return std::nullopt;
}

ElementType element_type_of_c_type(std::string_view name) {
  // Vector types carry the element type of their components; the replay
  // compares them component by component.
  static const std::map<std::string, ElementType, std::less<>> table = {
      {"float", ElementType::F32}, {"float1", ElementType::F32}, {"float2", ElementType::F32},
      {"float3", ElementType::F32}, {"float4", ElementType::F32},
      {"double", ElementType::F64}, {"double1", ElementType::F64}, {"double2", ElementType::F64},
      {"double3", ElementType::F64}, {"double4", ElementType::F64},
      {"__half", ElementType::F16}, {"half", ElementType::F16}, {"__half2", ElementType::F16},
      {"half2", ElementType::F16}, {"__half_raw", ElementType::F16},
      {"__nv_bfloat16", ElementType::BF16}, {"nv_bfloat16", ElementType::BF16},
      {"__nv_bfloat162", ElementType::BF16}, {"nv_bfloat162", ElementType::BF16},
      {"__bf16", ElementType::BF16},
      {"char", ElementType::I8}, {"signed char", ElementType::I8}, {"int8_t", ElementType::I8},
      {"char1", ElementType::I8}, {"char2", ElementType::I8}, {"char3", ElementType::I8}, {"char4", ElementType::I8},
      {"unsigned char", ElementType::U8}, {"uint8_t", ElementType::U8}, {"uchar1", ElementType::U8},
      {"uchar2", ElementType::U8}, {"uchar3", ElementType::U8}, {"uchar4", ElementType::U8},
      {"short", ElementType::I16}, {"short int", ElementType::I16}, {"signed short", ElementType::I16},
      {"int16_t", ElementType::I16}, {"short2", ElementType::I16}, {"short4", ElementType::I16},
      {"unsigned short", ElementType::U16}, {"unsigned short int", ElementType::U16}, {"uint16_t", ElementType::U16},
      {"ushort2", ElementType::U16}, {"ushort4", ElementType::U16},
      {"int", ElementType::I32}, {"signed", ElementType::I32}, {"signed int", ElementType::I32},
      {"int32_t", ElementType::I32}, {"int1", ElementType::I32}, {"int2", ElementType::I32},
      {"int3", ElementType::I32}, {"int4", ElementType::I32},
      {"unsigned", ElementType::U32}, {"unsigned int", ElementType::U32}, {"uint32_t", ElementType::U32},
      {"uint1", ElementType::U32}, {"uint2", ElementType::U32}, {"uint3", ElementType::U32}, {"uint4", ElementType::U32},
      {"long", ElementType::I64}, {"long int", ElementType::I64}, {"long long", ElementType::I64},
      {"long long int", ElementType::I64}, {"int64_t", ElementType::I64}, {"ptrdiff_t", ElementType::I64},
      {"ssize_t", ElementType::I64}, {"longlong2", ElementType::I64}, {"long2", ElementType::I64},
      {"unsigned long", ElementType::U64}, {"unsigned long int", ElementType::U64},
      {"unsigned long long", ElementType::U64}, {"unsigned long long int", ElementType::U64},
      {"uint64_t", ElementType::U64}, {"size_t", ElementType::U64}, {"ulonglong2", ElementType::U64},
      {"bool", ElementType::Bool},
  };
  auto it = table.find(name);
  return it == table.end() ? ElementType::Bytes : it->second;
}

// One implementation for host and GPU: element_ops.h.
static_assert(static_cast<int>(ElementType::F64) == ops::kF64 && static_cast<int>(ElementType::BF16) == ops::kBF16 &&
                  static_cast<int>(ElementType::I32) == ops::kI32 && static_cast<int>(ElementType::Bool) == ops::kBool,
              "element_ops.h's type codes must be ElementType's values");

double half_bits_to_double(std::uint16_t h) { return ops::half_to_double(h); }
double bf16_bits_to_double(std::uint16_t b) { return ops::bf16_to_double(b); }
std::uint16_t double_to_half_bits(double v) { return ops::double_to_half(v); }
std::uint16_t double_to_bf16_bits(double v) { return ops::double_to_bf16(v); }

namespace {
template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(std::uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
}  // namespace

double load_as_double(ElementType t, const std::uint8_t* p) {
  switch (t) {
    case ElementType::F64: return load<double>(p);
    case ElementType::F32: return load<float>(p);
    case ElementType::F16: return half_bits_to_double(load<std::uint16_t>(p));
    case ElementType::BF16: return bf16_bits_to_double(load<std::uint16_t>(p));
    case ElementType::I8: return load<std::int8_t>(p);
    case ElementType::U8: return load<std::uint8_t>(p);
    case ElementType::I16: return load<std::int16_t>(p);
    case ElementType::U16: return load<std::uint16_t>(p);
    case ElementType::I32: return load<std::int32_t>(p);
    case ElementType::U32: return load<std::uint32_t>(p);
    case ElementType::I64: return static_cast<double>(load<std::int64_t>(p));
    case ElementType::U64: return static_cast<double>(load<std::uint64_t>(p));
    case ElementType::Bool: return p[0] ? 1.0 : 0.0;
    case ElementType::Bytes: return p[0];
  }
  return 0;
}

void store_from_double(ElementType t, std::uint8_t* p, double v) {
  switch (t) {
    case ElementType::F64: store<double>(p, v); break;
    case ElementType::F32: store<float>(p, static_cast<float>(v)); break;
    case ElementType::F16: store<std::uint16_t>(p, double_to_half_bits(v)); break;
    case ElementType::BF16: store<std::uint16_t>(p, double_to_bf16_bits(v)); break;
    case ElementType::I8: store<std::int8_t>(p, static_cast<std::int8_t>(v)); break;
    case ElementType::U8: store<std::uint8_t>(p, static_cast<std::uint8_t>(v)); break;
    case ElementType::I16: store<std::int16_t>(p, static_cast<std::int16_t>(v)); break;
    case ElementType::U16: store<std::uint16_t>(p, static_cast<std::uint16_t>(v)); break;
    case ElementType::I32: store<std::int32_t>(p, static_cast<std::int32_t>(v)); break;
    case ElementType::U32: store<std::uint32_t>(p, static_cast<std::uint32_t>(v)); break;
    case ElementType::I64: store<std::int64_t>(p, static_cast<std::int64_t>(v)); break;
    case ElementType::U64: store<std::uint64_t>(p, static_cast<std::uint64_t>(v)); break;
    case ElementType::Bool: p[0] = v != 0; break;
    case ElementType::Bytes: p[0] = static_cast<std::uint8_t>(v); break;
  }
}

bool element_is_nan(ElementType t, const std::uint8_t* p) {
  return is_floating(t) && std::isnan(load_as_double(t, p));
}

std::string format_element(ElementType t, const std::uint8_t* p) {
  char buf[64];
  if (is_floating(t)) {
    double v = load_as_double(t, p);
    if (std::isnan(v)) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, p, static_cast<std::size_t>(element_size(t)));
      std::snprintf(buf, sizeof buf, "NaN (0x%0*llx)", element_size(t) * 2, static_cast<unsigned long long>(bits));
    } else {
      std::snprintf(buf, sizeof buf, "%.9g", v);
    }
    return buf;
  }
  switch (t) {
    case ElementType::I64: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(load<std::int64_t>(p))); break;
    case ElementType::U64:
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(load<std::uint64_t>(p)));
      break;
    case ElementType::Bytes: std::snprintf(buf, sizeof buf, "0x%02x", p[0]); break;
    default: std::snprintf(buf, sizeof buf, "%.0f", load_as_double(t, p)); break;
  }
  return buf;
}

}  // namespace warplens::verifier
