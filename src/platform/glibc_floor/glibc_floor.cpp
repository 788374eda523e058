// The two functions the lab_check link puts in place of glibc 2.35/2.36 symbols (glibc_floor.h).
#include "platform/glibc_floor/glibc_floor.h"

#include <fcntl.h>
#include <link.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

// x86-64 and arm64 have no data-relative base in struct dl_find_object (bits/dl_find_object.h);
// i386 does, and glibc fills it from the object's DT_PLTGOT, which the search below does not read.
#if DLFO_STRUCT_HAS_EH_DBASE
#error "glibc_floor: this architecture's dl_find_object has dlfo_eh_dbase, which FindObjectByProgramHeaders does not fill"
#endif

extern "C" uint32_t __wrap_arc4random(void) {
  uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno == EINTR) continue;
    break;  // ENOSYS: a kernel before 3.17
  }
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t got = read(fd, &value, sizeof value);
    close(fd);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
  }
  // glibc's arc4random ends the process too ("cannot get entropy for arc4random"): returning a
  // predictable number would be worse than stopping.
  std::fputs("lab_check: no entropy from getrandom() or /dev/urandom for std::random_device\n", stderr);
  std::abort();
}

namespace labcheck {
namespace {

struct Search {
  uintptr_t pc;
  struct dl_find_object* result;
  bool found;
};

int VisitObject(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = UINTPTR_MAX, end = 0;
  const void* eh_frame = nullptr;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + header.p_vaddr;
    if (header.p_type == PT_LOAD) {
      start = std::min(start, begin & ~(page - 1));
      end = std::max(end, begin + header.p_memsz);
      contains |= search->pc >= begin && search->pc < begin + header.p_memsz;
    } else if (header.p_type == DLFO_EH_SEGMENT_TYPE) {
      eh_frame = reinterpret_cast<const void*>(begin);
    }
  }
  if (!contains) return 0;
  search->result->dlfo_flags = 0;
  search->result->dlfo_map_start = reinterpret_cast<void*>(start);
  search->result->dlfo_map_end = reinterpret_cast<void*>(end);
  search->result->dlfo_eh_frame = const_cast<void*>(eh_frame);
  search->found = true;
  return 1;
}

}  // namespace

int FindObjectByProgramHeaders(const void* pc, struct dl_find_object* result) {
  Search search{reinterpret_cast<uintptr_t>(pc), result, false};
  dl_iterate_phdr(VisitObject, &search);
  if (!search.found) return -1;
  // The link map after the walk: dladdr1 takes the loader's lock that dl_iterate_phdr holds.
  Dl_info ignored;
  struct link_map* map = nullptr;
  result->dlfo_link_map = dladdr1(pc, &ignored, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) ? map : nullptr;
  return 0;
}

}  // namespace labcheck

extern "C" int __wrap__dl_find_object(void* pc, struct dl_find_object* result) {
  // Looked up once. dlvsym (GLIBC_2.34 on glibc 2.34+, 2.2.5 before) asks for the exact version,
  // so a newer glibc's _dl_find_object is used unchanged and an older one falls back.
  using FindObjectFunction = int (*)(void*, struct dl_find_object*);
  static const auto glibc_own =
      reinterpret_cast<FindObjectFunction>(dlvsym(RTLD_DEFAULT, "_dl_find_object", "GLIBC_2.35"));
  if (glibc_own) return glibc_own(pc, result);
  return labcheck::FindObjectByProgramHeaders(pc, result);
}
