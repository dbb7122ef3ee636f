#include "profiler/cubin_symbols.h"

#include <cstring>

namespace warplens::capture {

namespace {

// The ELF64 layouts this reader needs (<elf.h> names), read with memcpy so
// that an unaligned or truncated image is never dereferenced.
constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint16_t kShnUndef = 0;
constexpr std::uint16_t kShnLoReserve = 0xff00;
constexpr unsigned kSttObject = 1;
constexpr unsigned kSttFunc = 2;
// A relocatable (-rdc) cubin types its variables STT_LOPROC (13, CUDA's
// object type); the linked image the driver loads uses STT_OBJECT.
constexpr unsigned kSttCudaObject = 13;

struct SectionHeader {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

class Reader {
 public:
  Reader(const void* image, std::size_t size) : p_(static_cast<const unsigned char*>(image)), size_(size) {}
  bool has(std::uint64_t offset, std::uint64_t bytes) const {
    return offset <= size_ && bytes <= size_ - offset;
  }
  template <class T>
  T get(std::uint64_t offset) const {
    T v{};
    std::memcpy(&v, p_ + offset, sizeof v);
    return v;
  }
  // A NUL-terminated string inside [table, table + table_size); "" when it
  // runs past the table.
  std::string string_at(std::uint64_t table, std::uint64_t table_size, std::uint64_t index) const {
    if (index >= table_size) return {};
    const auto* s = reinterpret_cast<const char*>(p_ + table + index);
    const std::size_t n = strnlen(s, static_cast<std::size_t>(table_size - index));
    if (n == table_size - index) return {};
    return std::string(s, n);
  }

 private:
  const unsigned char* p_;
  std::size_t size_;
};

// The sections nvcc puts user variables in: bank 3 of constant memory for
// __constant__, .nv.global(.init) for __device__ (bank 0 holds a kernel's
// parameters, other banks the compiler's own constants).
bool user_variable_section(const std::string& name) {
  return name == ".nv.constant3" || name == ".nv.global" || name == ".nv.global.init";
}

}  // namespace

CubinSymbols read_cubin_symbols(const void* image, std::size_t size) {
  CubinSymbols out;
  Reader r(image, size);
  if (!image || !r.has(0, 64) || std::memcmp(image, "\x7f" "ELF", 4) != 0) {
    out.error = "not an ELF image";
    return out;
  }
  if (r.get<std::uint8_t>(4) != 2 || r.get<std::uint8_t>(5) != 1) {
    out.error = "not a little-endian ELF64 image";
    return out;
  }
  const auto shoff = r.get<std::uint64_t>(0x28);
  const auto shentsize = r.get<std::uint16_t>(0x3a);
  const auto shnum = r.get<std::uint16_t>(0x3c);
  const auto shstrndx = r.get<std::uint16_t>(0x3e);
  if (shentsize < 64 || !r.has(shoff, std::uint64_t{shnum} * shentsize) || shstrndx >= shnum) {
    out.error = "malformed ELF section header table";
    return out;
  }
  std::vector<SectionHeader> sections(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + std::uint64_t{i} * shentsize;
    SectionHeader& s = sections[i];
    s.name = r.get<std::uint32_t>(at);
    s.type = r.get<std::uint32_t>(at + 4);
    s.offset = r.get<std::uint64_t>(at + 0x18);
    s.size = r.get<std::uint64_t>(at + 0x20);
    s.link = r.get<std::uint32_t>(at + 0x28);
    s.entsize = r.get<std::uint64_t>(at + 0x38);
  }
  const SectionHeader& names = sections[shstrndx];
  if (!r.has(names.offset, names.size)) {
    out.error = "malformed ELF section name table";
    return out;
  }
  auto section_name = [&](std::size_t i) { return r.string_at(names.offset, names.size, sections[i].name); };
  for (const SectionHeader& symtab : sections) {
    if (symtab.type != kShtSymtab) continue;
    if (symtab.entsize < 24 || symtab.link >= shnum || !r.has(symtab.offset, symtab.size)) {
      out.error = "malformed ELF symbol table";
      return out;
    }
    const SectionHeader& strtab = sections[symtab.link];
    if (!r.has(strtab.offset, strtab.size)) {
      out.error = "malformed ELF string table";
      return out;
    }
    for (std::uint64_t at = symtab.offset; at + 24 <= symtab.offset + symtab.size; at += symtab.entsize) {
      const auto name_index = r.get<std::uint32_t>(at);
      const unsigned type = r.get<std::uint8_t>(at + 4) & 0xf;
      const auto shndx = r.get<std::uint16_t>(at + 6);
      const auto bytes = r.get<std::uint64_t>(at + 16);
      if (shndx == kShnUndef || shndx >= kShnLoReserve || shndx >= shnum) continue;
      std::string name = r.string_at(strtab.offset, strtab.size, name_index);
      if (name.empty()) continue;
      if (type == kSttFunc) {
        out.functions.push_back(std::move(name));
      } else if ((type == kSttObject || type == kSttCudaObject) && bytes > 0) {
        std::string section = section_name(shndx);
        if (user_variable_section(section)) out.variables.push_back({std::move(name), bytes, std::move(section)});
      }
    }
  }
  return out;
}

}  // namespace warplens::capture
