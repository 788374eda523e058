// Datasheet figures of the GPUs people train on, and the realistic share of them that a good
// benchmark reaches. The data lives in data/gpus.json (every figure with its source) and is
// compiled into the binary; this is the only way code reads it. Source texts come in both report
// languages ("sources_ru", "source_ru" beside the English): our remarks translated, the published
// titles, quotations and URLs as they are.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::reference {

// A closed interval, e.g. the realistic share of a datasheet figure: {0.70, 0.85}.
struct Band {
  double low = 0;
  double high = 0;
};

// A GPU's NVLink (data/gpus.json "nvlink"): links × link_gbps × 2 is the datasheet's total.
struct NvLinkSpec {
  std::string generation;  // "nvlink3", "nvlink3_ga102", "nvlink4"
  double link_gbps = 0;    // one link, one direction, GB/s
  int links = 0;           // links the GPU has
  int bridge_links = 0;    // PCIe cards: links a full set of bridges gives a pair; 0 on boards (SXM)
  Text source;             // where the per-link rate comes from
};

struct GpuSpec {
  std::string id;                  // "rtx-4080-32gb", "h100-sxm"
  std::string name;                // "NVIDIA GeForce RTX 4080 32 GB (modified)"; JSON reports carry it
  std::string name_ru;             // Russian where the name has words of ours ("(модифицированная)"); else empty
  // Each entry is a set of lower-case words that must all appear in the driver's device name,
  // split at spaces, '-' and '_' ("a100 pcie" matches "NVIDIA A100-PCIE-40GB" and "NVIDIA A100
  // 80GB PCIe"). Whole words, so "l4" does not match "L40S".
  std::vector<std::string> match;
  std::vector<std::string> exclude;  // words that rule the entry out: "super", "ti", "laptop"
  std::string architecture;        // "Ada Lovelace"
  int cc_major = 0, cc_minor = 0;  // compute capability
  double memory_gib = 0;           // as sold ("24 GB" cards carry 24 GiB)
  int sm_count = 0;                // streaming multiprocessors of the whole card; 0 where the file lacks it
  int mig_compute_slices = 0;  // MIG: the card's compute slices (7 on A100/H100/H200); a profile "Ng" has N of them
  // Dense tensor-core figures without sparsity, TFLOPS (10^12 FLOP/s).
  std::optional<double> bf16_tflops;           // FP32 accumulate
  std::optional<double> fp16_tflops;           // FP32 accumulate
  std::optional<double> fp16_fp16acc_tflops;   // only where it differs (GeForce halves FP32 acc.)
  std::optional<double> tf32_tflops;
  std::optional<double> fp8_tflops;            // FP32 accumulate; absent before Ada/Hopper
  std::optional<double> memory_bandwidth_gbps; // GB/s, 10^9 bytes
  int pcie_gen = 0;
  int pcie_width = 0;
  std::optional<double> nvlink_gbps;  // total per GPU, both directions; absent = no NVLink
  std::optional<NvLinkSpec> nvlink;   // per-link rate and link counts; absent = no NVLink
  bool geforce = false;               // P2P is usually disabled by the driver on GeForce cards
  std::optional<double> power_w;
  Text source;         // where the figures come from: datasheet / whitepaper titles with URLs, our remarks
  std::string note;    // caveats about the figures, English (no report shows it); e.g. modified 32 GB cards

  // The name as a report in either language shows it.
  Text DisplayName() const { return Text(name_ru.empty() ? name : name_ru, name); }
};

struct PcieLink {
  int gen = 0;
  int width = 0;
  double limit_gbps = 0;  // one direction, after encoding, before protocol overhead
  Band practice_gbps;     // what pinned copies reach in practice
  std::string source;     // English: no report shows it
};

// How to estimate the figures of a GPU the catalog lacks (see derived_spec.h).
struct TensorRate {
  int cc_major = 0, cc_minor = 0;
  double fp16_flop_per_clock_per_sm = 0;  // dense, FP32 accumulation
  Text source;  // the datasheet and the division it comes from
};
struct DerivedRules {
  std::vector<TensorRate> tensor_rates;
  double geforce_fp32_accumulate_factor = 0.5;
  std::string source;  // the rules' explanation and the datasheets they were computed from; English
};

class GpuCatalog {
 public:
  // The catalog compiled into the binary. Never fails once tests pass (they parse it).
  static const GpuCatalog& Builtin();
  static Result<GpuCatalog> Parse(const std::string& json_text);

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const GpuSpec* FindById(const std::string& id) const;
  // Matches a device name as the driver reports it ("NVIDIA H100 80GB HBM3") plus its memory,
  // which tells apart 40/80 GB A100s and the 32 GB 4080. nullptr for an unknown GPU, and for a
  // MIG slice (IsMigSlice): a share of the card's SMs and memory, which the whole card's
  // figures do not describe, so it is not comparable with them.
  const GpuSpec* Match(const std::string& device_name, double memory_gib) const;

  Band matmul_share() const { return matmul_share_; }        // of the datasheet, e.g. 0.70–0.85
  Band memory_copy_share() const { return memory_copy_share_; }  // e.g. 0.80–0.90
  const Text& matmul_share_source() const { return matmul_share_source_; }
  const Text& memory_copy_share_source() const { return memory_copy_share_source_; }
  // What a GPU→GPU copy over N NVLinks reaches of N × link_gbps (0.80–0.90).
  Band nvlink_copy_share() const { return nvlink_copy_share_; }
  const Text& nvlink_copy_share_source() const { return nvlink_copy_share_source_; }
  std::optional<PcieLink> Pcie(int gen, int width) const;
  const std::vector<PcieLink>& pcie_links() const { return pcie_; }
  const DerivedRules& derived_rules() const { return derived_; }

 private:
  std::vector<GpuSpec> gpus_;
  Band matmul_share_;
  Band memory_copy_share_;
  Text matmul_share_source_;
  Text memory_copy_share_source_;
  Band nvlink_copy_share_{0.80, 0.90};
  Text nvlink_copy_share_source_;
  std::vector<PcieLink> pcie_;
  DerivedRules derived_;
};

// The words of a device name as Match() compares them: lower case, split at ' ', '-', '_'.
std::vector<std::string> DeviceNameWords(const std::string& device_name);

// A MIG slice's device name: the card's name, "MIG" and the profile ("NVIDIA A100-SXM4-40GB MIG
// 1g.5gb", "… MIG 1g.10gb+me"), as CUDA and NVML name a MIG device (NVIDIA's MIG user guide names
// profiles <compute slices>g.<memory>gb; a compute instance smaller than its GPU instance
// "<compute slices>c.<slices>g.<memory>gb").
bool IsMigSlice(const std::string& device_name);
// The compute slices a MIG device's profile holds: N of "Ng.…", N of "Nc.Mg.…"; 0 when the name is
// not a MIG slice's.
int MigComputeSlices(const std::string& device_name);

}  // namespace labcheck::reference
