// libnvidia-ml.so.1 as the CUDA toolkit's NVML stub (lib64/stubs/libnvidia-ml.so), for
// build/sim-nvidia-stub/. nvmlInit_v2 and every other call return NVML_ERROR_DRIVER_NOT_LOADED (9):
// UCX tells the stub apart by exactly that result ("nvml is a stub library",
// openucx/ucx src/uct/cuda/base/cuda_iface.h), and prints what nvmlErrorString gives for it, a
// multi-line warning banner that the stub also prints when initialised (openucx/ucx pull 9232).
// The sim prints the banner to stdout, the stricter choice: a child's JSON must survive it.
#include <cstdio>

namespace {

// Paraphrased: the stub says it is one and that the driver's own NVML must be used at run time.
constexpr const char* kBanner =
    "\n"
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    "WARNING: this libnvidia-ml.so is the CUDA toolkit's stub, for linking only.\n"
    "Run with the libnvidia-ml.so that came with the NVIDIA display driver\n"
    "(in /usr/lib or /usr/lib64 by default).\n"
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n";

constexpr int kDriverNotLoaded = 9;

int Init() {
  std::fputs(kBanner, stdout);
  std::fflush(stdout);
  return kDriverNotLoaded;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int nvmlInit_v2() { return Init(); }
extern "C" __attribute__((visibility("default"))) int nvmlInit() { return Init(); }
extern "C" __attribute__((visibility("default"))) int nvmlInitWithFlags(unsigned) { return Init(); }
extern "C" __attribute__((visibility("default"))) const char* nvmlErrorString(int) { return kBanner; }

#define NVSTUB(name) \
  extern "C" __attribute__((visibility("default"))) int name() { return kDriverNotLoaded; }
#include "nvml_stub_names.inc"
