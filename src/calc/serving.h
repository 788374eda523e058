// Serving with vLLM: does the model fit, at which tensor-parallel degree, and how many tokens of
// KV cache remain. vLLM takes gpu_memory_utilization x card memory, subtracts the weights, the
// activation peak of its profile run and non-torch memory, and gives the rest to the KV cache;
// it refuses to start when that cannot hold one sequence of max_model_len.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "core/text.h"

namespace labcheck::calc {

enum class ServeQuant { Bf16, Int8, Int4 };
std::optional<ServeQuant> ParseServeQuant(const std::string& text);
const char* ServeQuantName(ServeQuant quant);

struct ServeSettings {
  int gpus = 1;
  double gpu_memory_gib = 0;
  ServeQuant quant = ServeQuant::Bf16;
  double utilization = 0.9;
  int64_t max_model_len = 0;  // 0: the model's max_position_embeddings
  double kv_dtype_bytes = 2;
};

struct TpOption {
  int tp = 1;
  bool heads_divide = true;       // num_attention_heads % tp == 0
  double weights_per_gpu = 0;
  std::optional<double> activation_peak_per_gpu;  // nullopt: needs the architecture
  double non_torch_per_gpu = 0;
  double budget_per_gpu = 0;      // utilization x memory
  double kv_room_per_gpu = 0;     // may be negative
  std::optional<int64_t> kv_tokens;       // nullopt: needs the architecture
  std::optional<int64_t> max_concurrency; // sequences of max_model_len
  bool fits = false;
};

struct ServePlan {
  double weights_bytes = 0;  // whole model at the chosen quantisation
  int64_t max_model_len = 0; // 0 when unknown (bare size)
  std::vector<TpOption> options;  // tp = 1 .. gpus
  std::optional<int> chosen_tp;   // smallest that fits
  std::string vllm_command;
  Text note;                       // about quantisation or bare sizes
};

// Weights of the model served at `quant`: linear layers quantised, embeddings/lm_head BF16.
double ServingWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& constants);
ServePlan PlanServing(const ModelInput& model, const ServeSettings& settings, const CalcConstants& constants);
nlohmann::json ServePlanJson(const ServePlan& plan, const ServeSettings& settings, Lang lang);

}  // namespace labcheck::calc
