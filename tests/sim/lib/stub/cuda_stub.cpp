// libcuda.so.1 as the CUDA toolkit's stub (lib64/stubs/libcuda.so, soname libcuda.so.1), for
// build/sim-nvidia-stub/. Observed of the CUDA 13.0 stub: it exports every driver entry point, and
// every one, cuInit, cuDriverGetVersion, cuDeviceGetCount, cuGetErrorName and cuGetErrorString
// included, returns CUDA_ERROR_STUB_LIBRARY (34) without writing its outputs (cuda.h: "Applications
// that run with the stub rather than a real driver loaded will result in CUDA API returning this
// error"). It knows no machine profile and does not export labcheck_sim_machine.
//
// The names are the simulated libcuda's (stub_exports.cmake), so the stub binds wherever the
// simulated driver binds; no argument is read, which the x86-64 and AArch64 calling conventions
// allow for a callee that ignores them.
#define NVSTUB(name) \
  extern "C" __attribute__((visibility("default"))) int name() { return 34; }
#include "cuda_stub_names.inc"
