// The dynamic loader's cache (/etc/ld.so.cache, what `ldconfig -p` prints), read directly: which
// files it holds for a soname. dlopen("libcuda.so.1") searches LD_LIBRARY_PATH before the cache,
// so once a stub on LD_LIBRARY_PATH has been refused, only these paths reach the real driver.
//
// Format (glibc sysdeps/generic/dl-cache.h): the "glibc-ld.so.cache1.1" header (48 bytes), then
// 24-byte entries {int32 flags; uint32 key, value; uint32 osversion; uint64 hwcap}, whose key
// (soname) and value (path) are offsets from that header. Files that begin with the old
// "ld.so-1.7.0" table carry the new one after it, 8-byte aligned. Only entries for this
// process's ABI are returned (flags 0x0303 libc6,x86-64; 0x0a03 libc6,AArch64).
#pragma once
#include <string>
#include <vector>

namespace labcheck {

// The paths the cache maps `soname` to, in the cache's order; empty when the file is missing,
// unreadable or not a cache.
std::vector<std::string> LoaderCacheFiles(const std::string& cache_file, const std::string& soname);

// The same from a cache file's bytes (for tests).
std::vector<std::string> LoaderCacheFilesFromBytes(const std::string& bytes, const std::string& soname);

}  // namespace labcheck
