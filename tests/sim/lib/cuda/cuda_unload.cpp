// libcuda.so.1 sim: its teardown. A real driver's teardown (the library's destructors, run at
// dlclose or at process exit) can hang or crash when the GPU is in a bad state, e.g. after an
// Xid; a child job that prints its result only afterwards loses it. The profile's
// "faults/at_unload" makes this library do the same: "crash" (SIGSEGV) or "hang" (never returns).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/faults.h"
#include "core/profile.h"

namespace {

// Read while the library loads: at process exit the profile may already be destroyed.
std::string& UnloadFault() {
  static auto* fault = new std::string();
  return *fault;
}

__attribute__((constructor)) void ReadUnloadFault() {
  const char* machine = std::getenv("LABCHECK_SIM_MACHINE");
  if (machine != nullptr && machine[0] != '\0') UnloadFault() = nvsim::Profile().String("faults/at_unload");
}

__attribute__((destructor)) void Teardown() {
  const std::string& fault = UnloadFault();
  if (fault == "crash") nvsim::CrashNow("libcuda.so.1's teardown (faults/at_unload)");
  if (fault == "hang") {
    std::fprintf(stderr, "nvsim: libcuda.so.1's teardown hangs, as the profile asks (faults/at_unload)\n");
    std::fflush(stderr);
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace
