// libcublasLt.so.<major> sim: descriptors, the heuristic and cublasLtMatmul. The product is
// recorded on D and computed, entry by entry, when D is read (core/device_memory.h): the spot
// check's 32 reads cost 32 dot products, not an 8192³ GEMM. Modelled time: 2·M·N·K / the
// profile's TFLOPS for the input type ("perf/matmul_tflops/bf16|fp16|tf32|fp32|fp8"), times the
// returned algorithm's relative rate ("cublaslt/algo_rates"), FP8 without fast accumulation at
// "perf/fp8_slow_accum_factor", and the card's clock ramp (core/clock_ramp.h).
// As strict as the real library where lab_check could go wrong: FP8 layouts other than those
// cublasLtMatmul documents get no algorithm, and a cuBLASLt major that has no kernels for the
// card's compute capability refuses the handle (tests/sim/README.md, "Behaviours").
// Types and values: /usr/local/cuda/include/cublasLt.h, library_types.h.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/clock_ramp.h"
#include "core/heat.h"
#include "core/device_memory.h"
#include "core/devices.h"
#include "core/export.h"
#include "core/number_formats.h"

// The major this library answers as (cublaslt_major.cpp): all that differs between
// libcublasLt.so.12 and .so.13, so this file is compiled once for both.
int SimCublasMajor();

namespace {

using cublasStatus_t = int;
constexpr cublasStatus_t kSuccess = 0, kNotInitialized = 1, kInvalidValue = 7, kArchMismatch = 8, kNotSupported = 15;

enum DataType { kR32F = 0, kR16F = 2, kR16BF = 14, kR8FE4M3 = 28, kR8FE5M2 = 29 };
enum Compute { kCompute32F = 68, kCompute32FFastTF32 = 77, kCompute32FFast16F = 74, kCompute32FFast16BF = 75 };

struct Handle {
  int magic = 0x4C54;
};
struct Desc {
  int compute = kCompute32F, scale = kR32F, transa = 0, transb = 0;
  bool fast_accum = false;  // CUBLASLT_MATMUL_DESC_FAST_ACCUM (int8_t), FP8 only
};

// CUBLASLT_MATMUL_DESC_* attributes the sim reads (cublasLt.h, cublasLtMatmulDescAttributes_t).
constexpr int kDescTransA = 3, kDescTransB = 4, kDescFastAccum = 25;
struct Layout {
  int type = kR32F;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
};
struct Preference {
  size_t workspace = 0;
};
struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

size_t ElementBytes(int type) {
  switch (type) {
    case kR32F: return 4;
    case kR16F:
    case kR16BF: return 2;
    case kR8FE4M3: return 1;
    default: return 0;
  }
}

float Decode(int type, const unsigned char* p) {
  uint16_t h;
  float f;
  switch (type) {
    case kR16BF: std::memcpy(&h, p, 2); return nvsim::Bf16ToFloat(h);
    case kR16F: std::memcpy(&h, p, 2); return nvsim::HalfToFloat(h);
    case kR8FE4M3: return nvsim::E4m3ToFloat(*p);
    default: std::memcpy(&f, p, 4); return f;
  }
}

void Encode(int type, double value, unsigned char* p) {
  uint16_t h;
  const float f = static_cast<float>(value);
  switch (type) {
    case kR16BF: h = nvsim::FloatToBf16(f); std::memcpy(p, &h, 2); break;
    case kR16F: h = nvsim::FloatToHalf(f); std::memcpy(p, &h, 2); break;
    default: std::memcpy(p, &f, 4); break;
  }
}

// One operand as stored: where, its layout, and whether the GEMM reads it transposed.
struct Operand {
  nvsim::DevicePlace place;
  Layout layout;
  bool transposed = false;
};

class MatmulProducer : public nvsim::Producer {
 public:
  MatmulProducer(Operand a, Operand b, Operand c, Layout d, uint64_t k, float alpha, float beta, bool corrupt)
      : a_(std::move(a)), b_(std::move(b)), c_(std::move(c)), d_(d), k_(k), alpha_(alpha), beta_(beta), corrupt_(corrupt) {}

  void Produce(size_t offset, void* out, size_t bytes) const override {
    const size_t size = ElementBytes(d_.type);
    const size_t first = offset / size, last = (offset + bytes + size - 1) / size;
    std::vector<unsigned char> staged((last - first) * size, 0);
    for (size_t e = first; e < last; ++e) {
      const uint64_t row = e % static_cast<uint64_t>(d_.ld), col = e / static_cast<uint64_t>(d_.ld);
      if (row >= d_.rows || col >= d_.cols) continue;
      Encode(d_.type, Entry(row, col), &staged[(e - first) * size]);
    }
    std::memcpy(out, staged.data() + (offset - first * size), bytes);
  }

  bool ReadsFrom(const nvsim::Allocation* a) const override {
    return a_.place.allocation.get() == a || b_.place.allocation.get() == a ||
           (beta_ != 0 && c_.place.allocation.get() == a);
  }

 private:
  // Row `i` of op(A) or column `j` of op(B) as floats: contiguous when the stored matrix is read
  // along its columns, element by element otherwise.
  std::vector<float> Vector(const Operand& op, uint64_t index, bool along_columns) const {
    const size_t size = ElementBytes(op.layout.type);
    std::vector<unsigned char> raw(k_ * size);
    const uint64_t ld = static_cast<uint64_t>(op.layout.ld);
    if (along_columns) {
      nvsim::ReadBytes({op.place.allocation, op.place.offset + index * ld * size}, raw.data(), raw.size());
    } else {
      for (uint64_t l = 0; l < k_; ++l)
        nvsim::ReadBytes({op.place.allocation, op.place.offset + (index + l * ld) * size}, &raw[l * size], size);
    }
    std::vector<float> values(k_);
    for (uint64_t l = 0; l < k_; ++l) values[l] = Decode(op.layout.type, &raw[l * size]);
    return values;
  }

  double Entry(uint64_t i, uint64_t j) const {
    // op(A)(i, l) is A(l, i) when transposed: column i of the stored A. op(B)(l, j) is B(l, j):
    // column j of the stored B unless B is transposed.
    const std::vector<float> row = Vector(a_, i, a_.transposed);
    const std::vector<float> col = Vector(b_, j, !b_.transposed);
    double sum = 0;
    for (uint64_t l = 0; l < k_; ++l) sum += static_cast<double>(row[l]) * col[l];
    double value = alpha_ * sum;
    if (beta_ != 0) {
      const size_t size = ElementBytes(c_.layout.type);
      unsigned char raw[4];
      nvsim::ReadBytes({c_.place.allocation, c_.place.offset + (i + j * static_cast<uint64_t>(c_.layout.ld)) * size}, raw, size);
      value += beta_ * Decode(c_.layout.type, raw);
    }
    if (corrupt_) value = value * 1.5 + 1;  // profile fault: this card computes wrong results
    return value;
  }

  Operand a_, b_, c_;
  Layout d_;
  uint64_t k_;
  float alpha_, beta_;
  bool corrupt_;
};

bool IsFp8(int type) { return type == kR8FE4M3 || type == kR8FE5M2; }

// The lowest compute capability (major*10 + minor) this cuBLASLt major has kernels for: CUDA 13
// dropped Maxwell, Pascal and Volta (< 7.5), CUDA 12 dropped Kepler (< 5.0). CUDA 13.0 release
// notes, "Deprecated Architectures"; PyTorch's CUDA 13 wheels on a V100 fail with
// CUBLAS_STATUS_ARCH_MISMATCH from cublasCreate.
int MinComputeCapability() {
  const int major = SimCublasMajor();
  return major >= 13 ? 75 : major == 12 ? 50 : 35;
}

// The GPU of the calling thread's current context (cuBLASLt works on the current device).
const nvsim::Gpu* CurrentGpu() {
  const nvsim::Context* context = nvsim::CurrentContext();
  if (context == nullptr || context->device < 0) return nullptr;
  const auto& gpus = nvsim::Profile().gpus;
  return static_cast<size_t>(context->device) < gpus.size() ? &gpus[context->device] : nullptr;
}

int ComputeCapability(const nvsim::Gpu& g) { return g.cc_major * 10 + g.cc_minor; }

// cublasLtMatmul's FP8 requirements (https://docs.nvidia.com/cuda/cublas/#cublasltmatmul): FP8
// needs compute capability 8.9; below 10.0 A transposed and B not ("TN"); every dimension and
// leading dimension a multiple of 16 (16-byte alignment of 1-byte elements); CUBLAS_COMPUTE_32F
// with a CUDA_R_32F scale; D in F32, BF16, F16 or an FP8 type; not both inputs E5M2.
// false: the real library has no kernel for it (the heuristic returns none).
bool Fp8LayoutAccepted(int cc, const Desc& desc, const Layout& a, const Layout& b, const Layout& d) {
  if (cc < 89) return false;
  if (cc < 100 && (desc.transa != 1 || desc.transb != 0)) return false;
  if (desc.compute != kCompute32F || desc.scale != kR32F) return false;
  if (!IsFp8(a.type) || !IsFp8(b.type) || (a.type == kR8FE5M2 && b.type == kR8FE5M2)) return false;
  if (d.type != kR32F && d.type != kR16BF && d.type != kR16F && !IsFp8(d.type)) return false;
  for (const Layout* l : {&a, &b, &d})
    if (l->rows % 16 != 0 || l->cols % 16 != 0 || l->ld % 16 != 0) return false;
  return true;
}

// Relative rate of the heuristic's i-th algorithm ("cublaslt/algo_rates", default all 1): the
// heuristic's first choice is not always the fastest, which is why lab_check times a few.
double AlgoRate(uint64_t index) {
  const nvsim::json* rates = nvsim::Profile().At("cublaslt/algo_rates");
  if (rates == nullptr || !rates->is_array() || index >= rates->size() || !(*rates)[index].is_number()) return 1;
  return std::max(0.01, (*rates)[index].get<double>());
}

const char* PrecisionKey(int a_type, int compute) {
  switch (a_type) {
    case kR16BF: return "perf/matmul_tflops/bf16";
    case kR16F: return "perf/matmul_tflops/fp16";
    case kR8FE4M3: return "perf/matmul_tflops/fp8";
    default: return compute == kCompute32FFastTF32 ? "perf/matmul_tflops/tf32" : "perf/matmul_tflops/fp32";
  }
}

int VersionNumber(const std::string& text) {
  int major = 0, minor = 0, patch = 0;
  std::sscanf(text.c_str(), "%d.%d.%d", &major, &minor, &patch);
  return major * 10000 + minor * 100 + patch;
}

std::string VersionText() {
  const std::string key = "cublaslt_version_" + std::to_string(SimCublasMajor());
  return nvsim::Profile().String(key.c_str());
}

}  // namespace

NVSIM_EXPORT(cublasStatus_t, cublasLtCreate, (Handle * *handle)) {
  if (handle == nullptr) return kInvalidValue;
  const nvsim::Gpu* g = CurrentGpu();
  if (g != nullptr && ComputeCapability(*g) < MinComputeCapability()) return kArchMismatch;
  *handle = new Handle();
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtDestroy, (Handle * handle)) {
  if (handle == nullptr) return kNotInitialized;
  delete handle;
  return kSuccess;
}

NVSIM_EXPORT(size_t, cublasLtGetVersion, ()) { return static_cast<size_t>(VersionNumber(VersionText())); }

// The CUDA runtime this cuBLASLt was built against: major.minor of the library itself.
NVSIM_EXPORT(size_t, cublasLtGetCudartVersion, ()) {
  const int v = VersionNumber(VersionText());
  return static_cast<size_t>((v / 10000) * 1000 + ((v / 100) % 100) * 10);
}

NVSIM_EXPORT(const char*, cublasLtGetStatusName, (cublasStatus_t status)) {
  switch (status) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulDescCreate, (Desc * *desc, int compute, int scale)) {
  if (desc == nullptr) return kInvalidValue;
  *desc = new Desc{compute, scale, 0, 0};
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulDescDestroy, (Desc * desc)) {
  delete desc;
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulDescSetAttribute, (Desc * desc, int attribute, const void* value, size_t size)) {
  if (desc == nullptr || value == nullptr) return kInvalidValue;
  if (attribute == kDescTransA || attribute == kDescTransB) {  // cublasOperation_t
    if (size != sizeof(int)) return kInvalidValue;
    int op;
    std::memcpy(&op, value, sizeof op);
    if (op != 0 && op != 1) return kInvalidValue;
    (attribute == kDescTransA ? desc->transa : desc->transb) = op;
  } else if (attribute == kDescFastAccum) {  // int8_t
    if (size != sizeof(int8_t)) return kInvalidValue;
    int8_t on;
    std::memcpy(&on, value, sizeof on);
    desc->fast_accum = on != 0;
  }
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatrixLayoutCreate, (Layout * *layout, int type, uint64_t rows, uint64_t cols, int64_t ld)) {
  if (layout == nullptr || ElementBytes(type) == 0 || ld < static_cast<int64_t>(rows)) return kInvalidValue;
  *layout = new Layout{type, rows, cols, ld};
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatrixLayoutDestroy, (Layout * layout)) {
  delete layout;
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulPreferenceCreate, (Preference * *pref)) {
  if (pref == nullptr) return kInvalidValue;
  *pref = new Preference();
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulPreferenceDestroy, (Preference * pref)) {
  delete pref;
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulPreferenceSetAttribute, (Preference * pref, int attribute, const void* value, size_t size)) {
  if (pref == nullptr || value == nullptr) return kInvalidValue;
  if (attribute == 1 && size == sizeof(uint64_t)) std::memcpy(&pref->workspace, value, sizeof(uint64_t));
  return kSuccess;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmulAlgoGetHeuristic,
             (Handle * handle, Desc* desc, Layout* a, Layout* b, Layout* c, Layout* d, Preference* pref, int requested,
              HeuristicResult* results, int* returned)) {
  if (handle == nullptr) return kNotInitialized;
  if (desc == nullptr || a == nullptr || b == nullptr || c == nullptr || d == nullptr || pref == nullptr ||
      results == nullptr || returned == nullptr || requested <= 0)
    return kInvalidValue;
  *returned = 0;
  const nvsim::Gpu* g = CurrentGpu();
  if (IsFp8(a->type) && !Fp8LayoutAccepted(g != nullptr ? ComputeCapability(*g) : 0, *desc, *a, *b, *d))
    return kNotSupported;
  const int available = static_cast<int>(nvsim::Profile().Number("cublaslt/algos"));
  *returned = std::min(requested, available);
  for (int i = 0; i < *returned; ++i) {
    std::memset(&results[i], 0, sizeof results[i]);
    results[i].algo.data[0] = static_cast<uint64_t>(i);
    results[i].wavesCount = 1;
  }
  return *returned > 0 ? kSuccess : kNotSupported;
}

NVSIM_EXPORT(cublasStatus_t, cublasLtMatmul,
             (Handle * handle, Desc* desc, const void* alpha, const void* a, Layout* a_layout, const void* b,
              Layout* b_layout, const void* beta, const void* c, Layout* c_layout, void* d, Layout* d_layout,
              const Algo* algo, void* workspace, size_t workspace_bytes, void* stream)) {
  (void)workspace;
  (void)workspace_bytes;
  if (handle == nullptr) return kNotInitialized;
  if (desc == nullptr || alpha == nullptr || beta == nullptr || a_layout == nullptr || b_layout == nullptr ||
      c_layout == nullptr || d_layout == nullptr || algo == nullptr)
    return kInvalidValue;
  const uint64_t m = d_layout->rows, n = d_layout->cols;
  const uint64_t k = desc->transa ? a_layout->rows : a_layout->cols;
  const uint64_t a_rows = desc->transa ? k : m, b_rows = desc->transb ? n : k;
  if (a_layout->rows != a_rows || b_layout->rows != b_rows || (desc->transb ? b_layout->cols != k : b_layout->cols != n))
    return kInvalidValue;
  auto place = [](const void* p, const Layout& l) {
    return nvsim::Find(reinterpret_cast<uintptr_t>(p), static_cast<size_t>(l.ld) * l.cols * ElementBytes(l.type));
  };
  Operand oa{place(a, *a_layout), *a_layout, desc->transa != 0};
  Operand ob{place(b, *b_layout), *b_layout, desc->transb != 0};
  Operand oc{place(c, *c_layout), *c_layout, false};
  nvsim::DevicePlace od = place(d, *d_layout);
  if (!oa.place.allocation || !ob.place.allocation || !od.allocation) return kInvalidValue;
  const nvsim::Gpu& g = nvsim::Profile().gpus[od.allocation->device];
  if (IsFp8(a_layout->type) && !Fp8LayoutAccepted(ComputeCapability(g), *desc, *a_layout, *b_layout, *d_layout))
    return kNotSupported;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kNotInitialized;
  float alpha_value, beta_value;
  std::memcpy(&alpha_value, alpha, 4);
  std::memcpy(&beta_value, beta, 4);
  if (beta_value != 0 && !oc.place.allocation) return kInvalidValue;
  // C is not read when beta is 0 (D = alpha·op(A)·op(B)), and is often D itself: a producer on D
  // that held D would keep D, A and B mapped for ever (a reference cycle), and their staged inputs.
  if (beta_value == 0) oc.place = {};
  const auto started = nvsim::RealClock::now();
  double tflops = g.Number(PrecisionKey(a_layout->type, desc->compute)) * nvsim::HeatFactor(g) * AlgoRate(algo->data[0]);
  if (tflops <= 0) return kNotSupported;  // the profile says this GPU cannot do this type
  nvsim::WriteLazy(od, static_cast<size_t>(d_layout->ld) * n * ElementBytes(d_layout->type),
                   std::make_shared<MatmulProducer>(oa, ob, oc, *d_layout, k, alpha_value, beta_value,
                                                    g.Flag("faults/matmul_wrong")));
  // Without fast accumulation Hopper's FP8 kernels promote partial sums to FP32 every few steps
  // (cublasLt.h, CUBLASLT_MATMUL_DESC_FAST_ACCUM); turning it on is worth 1.1-1.2x
  // (https://github.com/pytorch/ao/issues/2377), so 0.85 unless the profile says otherwise.
  if (IsFp8(a_layout->type) && !desc->fast_accum) tflops *= g.Number("perf/fp8_slow_accum_factor");
  const double work = 2.0 * m * n * k / (tflops * 1e12) * nvsim::Noise();
  const double seconds = g.Number("perf/latency_us") * 1e-6 + nvsim::RampedSeconds(g, nvsim::NextStart(*s), work);
  nvsim::AddWork(g.index, seconds);  // core/heat.h: sustained load heats a card with "heat"
  nvsim::Enqueue(*s, seconds, nvsim::Work::Matmul, started);
  return kSuccess;
}
