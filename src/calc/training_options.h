// The training knobs shared by `vram` and `plan`: registered once on each subcommand, turned into
// TrainingSettings with the combinations that cannot run refused, and the defaults that were
// taken listed with the tool whose default each one follows (printed and in --json).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/cli_forward.h"
#include <nlohmann/json.hpp>

#include "calc/training_settings.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc {

struct TrainingOptions {
  std::string method = "full";
  std::string optimizer = "adamw";
  std::string precision = "bf16";
  std::string loss = "full";
  std::string attention = "sdpa";
  std::string moe_kernel = "transformers";
  std::string sharding = "ddp";
  std::string lora_targets = "all-linear";
  std::string lora_experts = "yes";
  std::string adapter_dtype = "fp32";
  std::string offload = "none";
  std::string reshard_after_forward = "yes";
  std::string fsdp_version = "1";
  std::string alloc_conf;  // PYTORCH_CUDA_ALLOC_CONF
  int64_t seq = 2048;
  int64_t batch = 1;
  int64_t lora_rank = 16;
  double lora_dropout = 0;
  int gpus = 1;
  int shard_size = 0;
  int expert_parallel = 1;
  int prefetch = 1;
  bool shard_embeddings = false;
  bool checkpointing = false;  // the default depends on the method: see ToTrainingSettings
  bool optimizer_in_backward = false;
  bool packing = false;
  bool compile = false;
  bool keep_logits = false;
  std::map<std::string, CLI::Option*> given;  // knob name -> its option, to tell defaults apart
};

// `with_batch_and_gpus`: vram takes --batch and --gpus; plan finds them itself. Help texts in `lang`.
void AddTrainingOptions(CLI::App* sub, TrainingOptions& options, bool with_batch_and_gpus, Lang lang);

// Errors name the flags that do not go together and what to use instead.
Result<TrainingSettings> ToTrainingSettings(const TrainingOptions& options, Lang lang);

struct DefaultTaken {
  std::string knob;   // "loss"
  std::string value;  // "full"
  std::string follows;  // whose default it is, in English (JSON stays language-independent)
};
// The knobs left at their default that matter for these settings (LoRA knobs only for LoRA, the
// MoE kernel only for full fine-tuning of a model with routed experts, ...).
std::vector<DefaultTaken> DefaultsTaken(const TrainingOptions& options, const TrainingSettings& settings, bool routed_experts = false);

nlohmann::json TrainingSettingsJson(const TrainingSettings& settings);
nlohmann::json DefaultsJson(const std::vector<DefaultTaken>& defaults);
// "optimizer adamw, loss full, attention sdpa — ...": one line for the text report.
std::string DefaultsLine(const std::vector<DefaultTaken>& defaults, Lang lang);
// "qlora, adamw, loss chunked, sdpa, checkpointing, 4 GPUs fsdp": what is being estimated.
std::string SettingsLine(const TrainingSettings& settings);

}  // namespace labcheck::calc
