// The stand-ins lab_check's link uses for glibc 2.35/2.36 symbols (src/platform/glibc_floor).
// On glibc 2.34 the exception unwinder relies on FindObjectByProgramHeaders alone, and no machine
// here has glibc 2.34: so it is held field by field to glibc's own _dl_find_object, which this
// machine (Debian 12, glibc 2.36) has, for code in the test binary, in libc and in libstdc++.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <exception>
#include <set>
#include <string>

#include "platform/glibc_floor/glibc_floor.h"

namespace labcheck {
namespace {

void ExpectSameAsGlibc(const void* pc, const char* what) {
  struct dl_find_object glibc_answer {}, ours {};
  ASSERT_EQ(_dl_find_object(const_cast<void*>(pc), &glibc_answer), 0) << what;
  ASSERT_EQ(FindObjectByProgramHeaders(pc, &ours), 0) << what;
  // The unwinder reads dlfo_eh_frame (GCC 12's unwind-dw2-fde-dispatch.c): it must be glibc's.
  EXPECT_EQ(ours.dlfo_eh_frame, glibc_answer.dlfo_eh_frame) << what;
  EXPECT_NE(ours.dlfo_eh_frame, nullptr) << what;
  EXPECT_EQ(ours.dlfo_map_start, glibc_answer.dlfo_map_start) << what;
  EXPECT_EQ(ours.dlfo_link_map, glibc_answer.dlfo_link_map) << what;
  // The end is the object's last PT_LOAD. glibc ends a main program whose segments leave a gap
  // between them (l_contiguous false) at the segment that holds the address instead
  // (elf/dl-find_object.c, _dlfo_process_initial), so the two ends agree only for contiguous
  // objects; both must hold the address and never end before glibc's.
  EXPECT_GE(ours.dlfo_map_end, glibc_answer.dlfo_map_end) << what;
  EXPECT_GT(ours.dlfo_map_end, pc) << what;
}

TEST(GlibcFloor, FindsTheSameObjectAsGlibcForCodeAnywhere) {
  ExpectSameAsGlibc(reinterpret_cast<const void*>(&ExpectSameAsGlibc), "this test binary");
  ExpectSameAsGlibc(reinterpret_cast<const void*>(&std::fputs), "libc");
  // A libstdc++ function: the test binary links it as a shared library.
  ExpectSameAsGlibc(reinterpret_cast<const void*>(&std::terminate), "libstdc++");
}

TEST(GlibcFloor, AnAddressInNoObjectIsNotFound) {
  struct dl_find_object ours {};
  // Address 16: the first page is never mapped (vm.mmap_min_addr).
  EXPECT_EQ(FindObjectByProgramHeaders(reinterpret_cast<const void*>(16), &ours), -1);
  struct dl_find_object glibc_answer {};
  EXPECT_EQ(_dl_find_object(reinterpret_cast<void*>(16), &glibc_answer), -1);
}

TEST(GlibcFloor, WrappedFindObjectAnswersAsGlibc) {
  struct dl_find_object wrapped {}, glibc_answer {};
  void* pc = reinterpret_cast<void*>(&ExpectSameAsGlibc);
  ASSERT_EQ(__wrap__dl_find_object(pc, &wrapped), 0);
  ASSERT_EQ(_dl_find_object(pc, &glibc_answer), 0);
  EXPECT_EQ(wrapped.dlfo_eh_frame, glibc_answer.dlfo_eh_frame);
}

TEST(GlibcFloor, RandomWordsVary) {
  // 32 draws of 32 bits from the kernel: all equal would mean a constant source.
  std::set<uint32_t> seen;
  for (int i = 0; i < 32; ++i) seen.insert(__wrap_arc4random());
  EXPECT_GT(seen.size(), 1u);
}

}  // namespace
}  // namespace labcheck
