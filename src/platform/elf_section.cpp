#include "platform/elf_section.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

namespace labcheck {

namespace {

// The fields of Elf64_Ehdr and Elf64_Shdr we read (<elf.h> layout, little-endian).
struct SectionHeader {
  uint32_t name = 0;
  uint64_t offset = 0, size = 0;
};

template <typename T>
T Field(const std::string& bytes, size_t at) {
  T value{};
  if (at + sizeof value <= bytes.size()) std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

bool ReadAt(std::ifstream& in, uint64_t offset, uint64_t size, std::string* out) {
  out->assign(size, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out->data(), static_cast<std::streamsize>(size));
  return in.good() || (in.eof() && static_cast<uint64_t>(in.gcount()) == size);
}

}  // namespace

Result<std::string> ReadElfSection(const std::string& path, const std::string& name, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot open " + path);
  std::string header;
  if (!ReadAt(in, 0, 64, &header) || header.compare(0, 4, "\x7f" "ELF") != 0)
    return Status::Error(path + " is not an ELF file");
  if (header[4] != 2 || header[5] != 1) return Status::Error(path + " is not a 64-bit little-endian ELF file");
  const uint64_t table = Field<uint64_t>(header, 0x28);      // e_shoff
  const uint16_t entry_size = Field<uint16_t>(header, 0x3a);  // e_shentsize
  const uint16_t count = Field<uint16_t>(header, 0x3c);       // e_shnum
  const uint16_t names_index = Field<uint16_t>(header, 0x3e); // e_shstrndx
  if (table == 0 || entry_size < 64 || count == 0 || names_index >= count)
    return Status::Error(path + " has no section table");
  std::string raw;
  if (!ReadAt(in, table, uint64_t{entry_size} * count, &raw)) return Status::Error(path + ": truncated section table");
  std::vector<SectionHeader> sections(count);
  for (uint16_t i = 0; i < count; ++i) {
    const size_t at = size_t{i} * entry_size;
    sections[i] = {Field<uint32_t>(raw, at), Field<uint64_t>(raw, at + 0x18), Field<uint64_t>(raw, at + 0x20)};
  }
  const SectionHeader& names = sections[names_index];
  if (names.size > (1u << 20)) return Status::Error(path + ": section name table too large");
  std::string name_table;
  if (!ReadAt(in, names.offset, names.size, &name_table)) return Status::Error(path + ": truncated name table");
  for (const SectionHeader& section : sections) {
    if (section.name >= name_table.size() || std::strcmp(name_table.c_str() + section.name, name.c_str()) != 0) continue;
    if (section.size > max_bytes) return Status::Error(path + ": section " + name + " is larger than expected");
    std::string bytes;
    if (!ReadAt(in, section.offset, section.size, &bytes)) return Status::Error(path + ": truncated section " + name);
    return bytes;
  }
  return Status::Error(path + " has no " + name + " section");
}

}  // namespace labcheck
