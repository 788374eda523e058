// The glibc floor (docs/install.md, "Platforms"): lab_check must start on glibc 2.34 (RHEL/Rocky 9)
// although it is built on Debian 12 (glibc 2.36). Its own code calls nothing newer; two symbols
// come from the toolchain's static archives, which were compiled against glibc 2.36:
//  - arc4random (GLIBC_2.36), from libstdc++.a's random.o (std::random_device; the archive's
//    cow-string-inst.o pulls random.o in even when our code never makes a random_device);
//  - _dl_find_object (GLIBC_2.35), from libgcc_eh.a's unwind-dw2-fde-dip.o (GCC 12's unwinder
//    finds the frame tables of the code an exception passes through with it).
// The lab_check link redirects both (ld's --wrap, CMakeLists.txt) to the functions below, which
// use the newer symbol when the running glibc has it and an older equivalent when it does not.
// This file is linked into the executable itself, not into lab_core: a static library scanned
// before libstdc++.a could not answer references that libstdc++.a brings in afterwards.
#pragma once

#include <dlfcn.h>

#include <cstdint>

extern "C" {
// std::random_device's entropy: getrandom() (GLIBC_2.25), /dev/urandom where the kernel is older
// than 3.17; aborts like glibc's own arc4random when neither gives bytes.
uint32_t __wrap_arc4random(void);
// glibc's _dl_find_object where it exists (2.35+, looked up by version at run time), otherwise
// labcheck::FindObjectByProgramHeaders.
int __wrap__dl_find_object(void* pc, struct dl_find_object* result);
}

namespace labcheck {

// What _dl_find_object answers (dlfcn.h: 0 and `result` filled when `pc` lies in a loaded object,
// -1 otherwise), from dl_iterate_phdr (GLIBC_2.2.5): the object's mapping from its first PT_LOAD
// segment (page-aligned, as glibc maps it) to the end of its last, its link map (dladdr1) and its
// exception-handling segment (DLFO_EH_SEGMENT_TYPE: PT_GNU_EH_FRAME on x86-64 and arm64).
int FindObjectByProgramHeaders(const void* pc, struct dl_find_object* result);

}  // namespace labcheck
