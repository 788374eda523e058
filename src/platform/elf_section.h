// One section of a 64-bit little-endian ELF file (x86-64, AArch64), read without loading the
// file: how a library's build facts that it never reports through an API are learnt cheaply, e.g.
// NCCL's "NCCL version 2.28.9+cuda13.0", a .rodata string (NCCL's src/init.cc keeps it there "so
// that running strings on the lib can quickly reveal the version"). libnccl.so.2 is ~200 MB, its
// .rodata ~200 KB: only the section headers and that one section are read.
#pragma once
#include <cstddef>
#include <string>

#include "core/status.h"

namespace labcheck {

// The bytes of section `name` (".rodata"); an error when the file is not a 64-bit little-endian
// ELF, has no such section, or the section is larger than `max_bytes`.
Result<std::string> ReadElfSection(const std::string& path, const std::string& name, size_t max_bytes);

}  // namespace labcheck
