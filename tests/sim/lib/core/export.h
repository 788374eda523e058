// How the simulated libraries export NVIDIA's ABI names. Every exported entry point is a GNU
// indirect function: its resolver runs when our loader calls dlsym and picks what the machine
// profile asks for:
//   - nothing, when the name is listed under "missing_symbols" (an old driver without
//     cuDeviceGetUuid_v2 or nvmlDeviceGetCurrentClocksEventReasons), so no second build is needed;
//   - a stand-in that raises SIGSEGV when called, when the name is listed under "crash_in";
//   - a stand-in that never returns, when the name is listed under "hang_in" (a GPU that stopped
//     answering: a synchronize after XID 79 or a GSP timeout waits forever);
//   - the implementation otherwise.
// Nothing inside a library calls its own exported names, so the resolvers run only on lookup,
// never during relocation (our loader opens with RTLD_NOW).
#pragma once

#include "core/faults.h"

#define NVSIM_EXPORT(ret, name, params)                                                  \
  static ret name##_impl params;                                                         \
  [[noreturn]] static ret name##_crash params { nvsim::CrashNow(#name); }                \
  [[noreturn]] static ret name##_hang params { nvsim::HangNow(#name); }                  \
  using name##_pointer = ret(*) params;                                                  \
  extern "C" __attribute__((visibility("hidden"), used)) name##_pointer name##_resolve() { \
    if (nvsim::SymbolMissing(#name)) return nullptr;                                     \
    if (nvsim::CrashIn(#name)) return &name##_crash;                                     \
    if (nvsim::HangIn(#name)) return &name##_hang;                                       \
    return &name##_impl;                                                                 \
  }                                                                                      \
  extern "C" __attribute__((visibility("default"))) ret name params                     \
      __attribute__((ifunc(#name "_resolve")));                                          \
  static ret name##_impl params
