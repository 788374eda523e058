// libcuda.so.1 sim: modules and kernel launches. cuModuleLoadDataEx takes PTX text and refuses it
// as the driver's JIT would: not PTX at all (CUDA_ERROR_INVALID_IMAGE), a .version newer than this
// driver (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), a .target newer than the GPU, unbalanced braces or a
// statement without its ';' (CUDA_ERROR_INVALID_PTX, with the reason in the JIT error log). It does
// not compile anything: cuLaunchKernel runs lab_check's own kernels (bench/copy_kernels_ptx.cpp, and
// the memory test's: cuda/cuda_memtest.h),
// known by entry name and parameter list, with the same effect on device memory (recorded, computed
// when read: core/device_memory.h) and a modelled time from the profile (perf/kernel_copy_gbps,
// perf/kernel_triad_gbps). Launch limits as cuda.h and the CUDA Programming Guide state them.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/device_memory.h"
#include "cuda/cuda_internal.h"
#include "cuda/cuda_memtest.h"

using namespace cusim;

namespace {

struct Module;

struct Function {
  Module* module = nullptr;
  std::string name;
  std::vector<std::string> param_types;  // ".u64", ".f32", …, in order
  unsigned max_threads = 1024;           // .maxntid, else the hardware's 1024
};

struct Module {
  int device = -1;  // profile index of the context it was loaded into
  std::vector<std::unique_ptr<Function>> functions;
};

std::mutex& ModulesLock() {
  static std::mutex mutex;
  return mutex;
}

std::set<Module*>& Modules() {
  static auto* modules = new std::set<Module*>();
  return *modules;
}

Function* FindFunction(const void* handle) {
  for (Module* m : Modules())
    for (const auto& f : m->functions)
      if (f.get() == handle) return f.get();
  return nullptr;
}

// --- the "JIT": what the driver checks before it would compile ----------------------------------

std::string WithoutComments(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      out += ' ';
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// The highest PTX ISA a driver of CUDA major.minor JITs (PTX ISA release notes: CUDA 11.x ships
// 7.x, 12.0–12.5 8.0–8.5, 12.6 8.5, 12.7–12.9 8.6–8.8, 13.x 9.x), as major·10 + minor.
int MaxPtxIsa(int cuda) {
  const int major = cuda / 1000, minor = (cuda % 1000) / 10;
  if (major >= 13) return 90 + minor;
  if (major == 12) return 80 + (minor <= 6 ? std::min(minor, 5) : minor - 1);
  if (major == 11) return 70 + minor;
  if (major == 10) return 63 + minor;
  return 60;
}

int DriverCuda() {
  const std::string text = nvsim::Profile().String("cuda_driver_version");
  int major = 0, minor = 0;
  std::sscanf(text.c_str(), "%d.%d", &major, &minor);
  return major * 1000 + minor * 10;
}

struct Jit {
  CUresult result = kSuccess;
  std::string log;
};

Jit Refuse(CUresult result, std::string why) { return {result, "ptxas fatal   : " + std::move(why)}; }

// Parses `.visible .entry NAME( .param .TYPE NAME, … ) [.maxntid X, Y, Z] [.maxnreg N] { … }`.
Jit ParseEntries(const std::string& ptx, Module& module) {
  size_t at = 0;
  while ((at = ptx.find(".entry", at)) != std::string::npos) {
    at += 6;
    const size_t open = ptx.find('(', at), close = ptx.find(')', at), body = ptx.find('{', at);
    if (open == std::string::npos || close == std::string::npos || body == std::string::npos || !(open < close && close < body))
      return Refuse(kInvalidPtx, "syntax error in an .entry's parameter list");
    auto f = std::make_unique<Function>();
    f->module = &module;
    f->name = Trim(ptx.substr(at, open - at));
    if (f->name.empty()) return Refuse(kInvalidPtx, "an .entry without a name");
    std::string params = ptx.substr(open + 1, close - open - 1);
    size_t start = 0;
    while (start <= params.size() && !Trim(params).empty()) {
      const size_t comma = params.find(',', start);
      const std::string one = Trim(params.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      char type[16] = {};
      if (std::sscanf(one.c_str(), ".param %15s", type) != 1 || type[0] != '.')
        return Refuse(kInvalidPtx, "syntax error in parameter '" + one + "' of " + f->name);
      f->param_types.push_back(type);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    const std::string between = ptx.substr(close + 1, body - close - 1);
    if (const size_t n = between.find(".maxntid"); n != std::string::npos)
      f->max_threads = static_cast<unsigned>(std::strtoul(between.c_str() + n + 8, nullptr, 10));
    // Every statement of the body ends with ';' (labels with ':'; braces stand alone).
    int depth = 0;
    size_t i = body, line_start = body;
    std::string bad;
    auto check = [&](size_t from, size_t to) {
      std::string line = Trim(ptx.substr(from, to - from));
      if (!line.empty() && line.front() == '{') line = Trim(line.substr(1));
      if (!line.empty() && line.back() == '}') line = Trim(line.substr(0, line.size() - 1));
      if (bad.empty() && !line.empty() && line.back() != ';' && line.back() != ':') bad = line;
    };
    for (; i < ptx.size(); ++i) {
      if (ptx[i] == '{') ++depth;
      if (ptx[i] == '}') --depth;
      if (ptx[i] == '\n') {
        check(line_start, i);
        line_start = i + 1;
      }
      if (depth == 0) break;
    }
    if (depth != 0) return Refuse(kInvalidPtx, "unbalanced braces in " + f->name);
    check(line_start, i + 1);
    if (!bad.empty()) return Refuse(kInvalidPtx, "syntax error at '" + bad + "' in " + f->name + " (missing ';'?)");
    at = i + 1;
    module.functions.push_back(std::move(f));
  }
  return {};
}

Jit CompilePtx(const char* image, int device, Module& module) {
  if (std::memcmp(image, "\x7f" "ELF", 4) == 0)
    return Refuse(kNoBinaryForGpu, "the simulator runs PTX only, not cubins");
  const std::string ptx = WithoutComments(image);
  // "Each PTX module must begin with a .version directive" (PTX ISA, "PTX Module Directives").
  const std::string text = Trim(ptx);
  if (text.rfind(".version", 0) != 0) return {kInvalidImage, ""};
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), ".version %d.%d", &major, &minor) != 2) return Refuse(kInvalidPtx, "malformed .version");
  if (major * 10 + minor > MaxPtxIsa(DriverCuda()))
    return Refuse(kUnsupportedPtxVersion, "PTX ISA " + std::to_string(major) + "." + std::to_string(minor) +
                                              " is newer than this driver's JIT");
  const size_t target = text.find(".target");
  int sm = 0;
  if (target == std::string::npos || std::sscanf(text.c_str() + target, ".target sm_%d", &sm) != 1)
    return Refuse(kInvalidPtx, "no .target sm_XY directive");
  const nvsim::Gpu& g = nvsim::Profile().gpus[device];
  if (sm > g.cc_major * 10 + g.cc_minor)
    return Refuse(kInvalidPtx, "SM version specified by .target (sm_" + std::to_string(sm) +
                                   ") is higher than this GPU's (sm_" + std::to_string(g.cc_major * 10 + g.cc_minor) + ")");
  // The simulator's own limit: our kernels take 64-bit pointers.
  if (text.find(".address_size 64") == std::string::npos)
    return Refuse(kInvalidPtx, "the simulator takes 64-bit PTX only (.address_size 64)");
  if (std::count(text.begin(), text.end(), '{') != std::count(text.begin(), text.end(), '}'))
    return Refuse(kInvalidPtx, "unbalanced braces");
  return ParseEntries(text, module);
}

// CU_JIT_ERROR_LOG_BUFFER (5) and …_SIZE_BYTES (6): the log goes into the caller's buffer, its
// size is passed by value in the pointer and the bytes written come back the same way.
void WriteLog(const std::string& log, unsigned count, CUjit_option* options, void** values) {
  char* buffer = nullptr;
  size_t size = 0;
  int size_index = -1;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == 5) buffer = static_cast<char*>(values[i]);
    if (options[i] == 6) {
      size = static_cast<size_t>(reinterpret_cast<uintptr_t>(values[i]));
      size_index = static_cast<int>(i);
    }
  }
  if (buffer == nullptr || size == 0) return;
  const size_t n = std::min(log.size(), size - 1);
  std::memcpy(buffer, log.data(), n);
  buffer[n] = '\0';
  values[size_index] = reinterpret_cast<void*>(static_cast<uintptr_t>(n + 1));
}

// --- running lab_check's kernels ------------------------------------------------------------------

// a ← b + s·c over float words, computed when a is read.
class TriadProducer : public nvsim::Producer {
 public:
  TriadProducer(nvsim::DevicePlace b, nvsim::DevicePlace c, float scalar) : b_(std::move(b)), c_(std::move(c)), s_(scalar) {}
  void Produce(size_t offset, void* out, size_t bytes) const override {
    const size_t first = offset / 4 * 4, end = (offset + bytes + 3) / 4 * 4;
    std::vector<float> b((end - first) / 4), c((end - first) / 4), a((end - first) / 4);
    nvsim::ReadBytes({b_.allocation, b_.offset + first}, b.data(), end - first);
    nvsim::ReadBytes({c_.allocation, c_.offset + first}, c.data(), end - first);
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::fma(s_, c[i], b[i]);
    std::memcpy(out, reinterpret_cast<const char*>(a.data()) + (offset - first), bytes);
  }
  bool ReadsFrom(const nvsim::Allocation* a) const override {
    return b_.allocation.get() == a || c_.allocation.get() == a;
  }

 private:
  nvsim::DevicePlace b_, c_;
  float s_;
};

// [pointer, pointer + bytes) on `device`, or an empty place: a GPU touching anything else faults.
nvsim::DevicePlace OnDevice(CUdeviceptr pointer, size_t bytes, int device) {
  nvsim::DevicePlace place = nvsim::Find(static_cast<uintptr_t>(pointer), bytes);
  if (!place.allocation || place.allocation->device != device) return {};
  return place;
}

template <class T>
T Param(void** params, int index) {
  T value;
  std::memcpy(&value, params[index], sizeof value);
  return value;
}

struct Kernel {
  const char* name;
  std::vector<std::string> params;
};
const Kernel kCopy{"labcheck_copy16", {".u64", ".u64", ".u64"}};
const Kernel kTriad{"labcheck_triad_f32x4", {".u64", ".u64", ".u64", ".u64", ".f32"}};

CUresult Run(const Function& f, nvsim::Stream& stream, void** params, unsigned blocks, unsigned threads) {
  const nvsim::Gpu& g = nvsim::Profile().gpus[stream.device];
  const bool copy = f.name == kCopy.name && f.param_types == kCopy.params;
  const bool triad = f.name == kTriad.name && f.param_types == kTriad.params;
  if (!copy && !triad) {
    // The memory test's kernels (cuda/cuda_memtest.h); anything else is not lab_check's.
    const std::optional<CUresult> memtest = RunMemtestKernel(f.name, f.param_types, stream, params, blocks, threads);
    return memtest ? *memtest : kNotSupported;
  }
  const auto started = nvsim::RealClock::now();
  const size_t bytes = Param<unsigned long long>(params, copy ? 2 : 3) * 16;
  nvsim::DevicePlace out = OnDevice(Param<CUdeviceptr>(params, 0), bytes, stream.device);
  nvsim::DevicePlace in = OnDevice(Param<CUdeviceptr>(params, 1), bytes, stream.device);
  nvsim::DevicePlace in2 = triad ? OnDevice(Param<CUdeviceptr>(params, 2), bytes, stream.device) : nvsim::DevicePlace{};
  // A real launch returns and the fault surfaces at the next synchronisation, leaving the context
  // unusable; the sim says it at once.
  if (!out.allocation || !in.allocation || (triad && !in2.allocation)) return kIllegalAddress;
  const double copy_gbps = g.NumberOr("perf/kernel_copy_gbps", g.Number("perf/device_copy_gbps"));
  const double gbps = (triad ? g.NumberOr("perf/kernel_triad_gbps", copy_gbps) : copy_gbps) * Occupancy(g, blocks, threads);
  if (bytes > 0) {
    if (copy) nvsim::WriteLazy(out, bytes, nvsim::CopyOf(in));
    else nvsim::WriteLazy(out, bytes, std::make_shared<TriadProducer>(in, in2, Param<float>(params, 4)));
  }
  const double counted = (triad ? 3.0 : 2.0) * static_cast<double>(bytes);
  const double seconds = g.Number("perf/latency_us") * 1e-6 + counted / (gbps * 1e9) * nvsim::Noise();
  nvsim::Enqueue(stream, seconds, nvsim::Work::Copy, started);
  return kSuccess;
}

}  // namespace

double cusim::Occupancy(const nvsim::Gpu& g, unsigned blocks, unsigned threads) {
  const double sm_count = g.Number("sm_count"), per_sm = MaxThreadsPerSm(g);
  const double resident_blocks = std::min<double>(blocks, sm_count * std::floor(per_sm / threads));
  return std::min(1.0, resident_blocks * threads / (sm_count * per_sm));
}

NVSIM_EXPORT(CUresult, cuModuleLoadDataEx, (void** module, const void* image, unsigned num_options,
                                             CUjit_option* options, void** option_values)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Context* context = nvsim::CurrentContext();
  if (context == nullptr) return kInvalidContext;
  if (CUresult lost = Sticky(context->device); lost != kSuccess) return lost;
  if (module == nullptr || image == nullptr) return kInvalidValue;
  if (num_options > 0 && (options == nullptr || option_values == nullptr)) return kInvalidValue;
  auto loaded = std::make_unique<Module>();
  loaded->device = context->device;
  const Jit jit = CompilePtx(static_cast<const char*>(image), context->device, *loaded);
  WriteLog(jit.log, num_options, options, option_values);
  if (jit.result != kSuccess) return jit.result;
  std::lock_guard<std::mutex> lock(ModulesLock());
  *module = loaded.get();
  Modules().insert(loaded.release());
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuModuleGetFunction, (void** function, void* module, const char* name)) {
  if (!Initialised()) return kNotInitialized;
  if (function == nullptr || name == nullptr) return kInvalidValue;
  std::lock_guard<std::mutex> lock(ModulesLock());
  auto it = Modules().find(static_cast<Module*>(module));
  if (it == Modules().end()) return kInvalidValue;
  for (const auto& f : (*it)->functions)
    if (f->name == name) {
      *function = f.get();
      return kSuccess;
    }
  return kNotFound;
}

NVSIM_EXPORT(CUresult, cuModuleUnload, (void* module)) {
  if (!Initialised()) return kNotInitialized;
  std::lock_guard<std::mutex> lock(ModulesLock());
  auto it = Modules().find(static_cast<Module*>(module));
  if (it == Modules().end()) return kInvalidValue;
  delete *it;
  Modules().erase(it);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuLaunchKernel, (void* function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                        unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                        CUstream stream, void** kernel_params, void** extra)) {
  if (!Initialised()) return kNotInitialized;
  Function f;  // a copy: the module may be unloaded by another thread while this one runs
  int module_device = -1;
  {
    std::lock_guard<std::mutex> lock(ModulesLock());
    const Function* found = FindFunction(function);
    if (found == nullptr) return kInvalidHandle;
    f = *found;
    module_device = found->module->device;
  }
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kInvalidContext;
  // A function belongs to the context its module was loaded into.
  if (s->device != module_device) return kInvalidHandle;
  if (CUresult lost = Sticky(s->device); lost != kSuccess) return lost;
  if (kernel_params != nullptr && extra != nullptr) return kInvalidValue;  // cuda.h: not both
  if (extra != nullptr) return kNotSupported;  // the packed-buffer form: lab_check does not use it
  if (kernel_params == nullptr && !f.param_types.empty()) return kInvalidValue;
  // Launch limits (CUDA Programming Guide, "Compute Capabilities"): grid x < 2^31, y and z ≤ 65535;
  // block x, y ≤ 1024, z ≤ 64, at most 1024 threads; 48 KiB of dynamic shared memory without the
  // opt-in attribute.
  if (grid_x == 0 || grid_y == 0 || grid_z == 0 || grid_x > 0x7FFFFFFFu || grid_y > 65535 || grid_z > 65535)
    return kInvalidValue;
  if (block_x == 0 || block_y == 0 || block_z == 0 || block_x > 1024 || block_y > 1024 || block_z > 64)
    return kInvalidValue;
  const unsigned long long threads = 1ull * block_x * block_y * block_z;
  if (threads > 1024 || shared_bytes > 48 * 1024) return kInvalidValue;
  if (threads > f.max_threads) return kLaunchOutOfResources;  // more than the kernel's .maxntid
  return Run(f, *s, kernel_params, grid_x * grid_y * grid_z, static_cast<unsigned>(threads));
}
