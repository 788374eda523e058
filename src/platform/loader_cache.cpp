#include "platform/loader_cache.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

namespace labcheck {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";  // CACHEMAGIC_NEW + CACHE_VERSION
constexpr size_t kNewHeaderBytes = 48;
constexpr size_t kNewEntryBytes = 24;
constexpr size_t kOldEntryBytes = 12;

// FLAG_ELF_LIBC6 with this ABI's FLAG_*_LIB64 (glibc sysdeps/generic/dl-cache.h).
constexpr int32_t kOwnAbiFlags =
#if defined(__x86_64__)
    0x0303;
#elif defined(__aarch64__)
    0x0a03;
#else
    -1;  // another ABI: the cache is not consulted
#endif

uint32_t U32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof value);  // the cache is in host byte order
  return value;
}

// Where the new-format header starts: 0, or after the old table; npos when neither is there.
size_t NewHeaderOffset(const std::string& bytes) {
  if (bytes.compare(0, kNewMagic.size(), kNewMagic) == 0) return 0;
  if (bytes.compare(0, kOldMagic.size(), kOldMagic) != 0 || bytes.size() < 16) return std::string::npos;
  const uint64_t old_libs = U32(bytes, 12);
  uint64_t offset = 16 + old_libs * kOldEntryBytes;
  offset = (offset + 7) & ~uint64_t{7};
  if (offset + kNewMagic.size() > bytes.size() || bytes.compare(offset, kNewMagic.size(), kNewMagic) != 0)
    return std::string::npos;
  return static_cast<size_t>(offset);
}

std::string_view CString(const std::string& bytes, size_t at) {
  if (at >= bytes.size()) return {};
  const char* start = bytes.data() + at;
  const void* end = std::memchr(start, '\0', bytes.size() - at);
  if (end == nullptr) return {};
  return std::string_view(start, static_cast<const char*>(end) - start);
}

}  // namespace

std::vector<std::string> LoaderCacheFilesFromBytes(const std::string& bytes, const std::string& soname) {
  std::vector<std::string> files;
  const size_t header = NewHeaderOffset(bytes);
  if (header == std::string::npos || header + kNewHeaderBytes > bytes.size()) return files;
  const uint64_t count = U32(bytes, header + kNewMagic.size());
  if (header + kNewHeaderBytes + count * kNewEntryBytes > bytes.size()) return files;
  for (uint64_t i = 0; i < count; ++i) {
    const size_t entry = header + kNewHeaderBytes + static_cast<size_t>(i) * kNewEntryBytes;
    int32_t flags = 0;
    std::memcpy(&flags, bytes.data() + entry, sizeof flags);
    if (flags != kOwnAbiFlags) continue;
    // String offsets count from the new header (glibc elf/dl-cache.c: cache_data = cache_new).
    if (CString(bytes, header + U32(bytes, entry + 4)) != soname) continue;
    const std::string_view path = CString(bytes, header + U32(bytes, entry + 8));
    if (!path.empty()) files.emplace_back(path);
  }
  return files;
}

std::vector<std::string> LoaderCacheFiles(const std::string& cache_file, const std::string& soname) {
  if (cache_file.empty()) return {};
  std::ifstream in(cache_file, std::ios::binary);
  if (!in) return {};
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return LoaderCacheFilesFromBytes(bytes, soname);
}

}  // namespace labcheck
