#include "calc/calc_constants.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "calc/embedded_data.h"

namespace labcheck::calc {
namespace {

using nlohmann::json;

double Number(const json& root, const char* section, const char* field) {
  return NumberOrAbort(root, "calculator_constants.json", section, field).get<double>();
}

QuantFormat ReadQuant(const json& root, const char* section) {
  QuantFormat q;
  q.bits_per_weight = Number(root, section, "bits_per_weight");
  q.group_size = static_cast<int>(Number(root, section, "group_size"));
  q.scale_bits = Number(root, section, "scale_bits");
  q.zero_point_bits = root[section].value("zero_point_bits", 0.0);
  return q;
}

CalcConstants Load() {
  const json root = EmbeddedJsonOrAbort("models/calculator_constants.json");
  CalcConstants c;
  const double block = Number(root, "nf4", "block_size");
  c.nf4_bits = Number(root, "nf4", "bits_per_weight") + Number(root, "nf4", "absmax_bits_double_quant") / block +
               Number(root, "nf4", "second_level_absmax_bits") / (block * Number(root, "nf4", "second_level_block_size"));
  c.nf4_data_bits = Number(root, "nf4", "bits_per_weight");
  c.int8 = ReadQuant(root, "int8");
  c.int4 = ReadQuant(root, "int4");
  c.adapter_weight_bytes = Number(root, "adapter_bytes_per_param", "weights");
  c.adapter_gradient_bytes = Number(root, "adapter_bytes_per_param", "gradients");
  c.cuda_context_gib = Number(root, "cuda_context_gib", "value");
  c.nccl_buffers_gib = Number(root, "nccl_buffers_gib", "value");
  for (const auto& [id, value] : root["cuda_total_capacity_gib"].items()) {
    if (value.is_number()) c.cuda_total_capacity_gib[id] = value.get<double>();
  }
  c.allocator_reserve_fraction = Number(root, "allocator_reserve_fraction", "value");
  c.lesson_full_bytes_per_param = Number(root, "lesson_rule_of_thumb", "full_bytes_per_param");
  c.lesson_full_multiplier = Number(root, "lesson_rule_of_thumb", "full_multiplier");
  c.lesson_qlora_bytes_per_param = Number(root, "lesson_rule_of_thumb", "qlora_bytes_per_param");
  c.lesson_qlora_overhead_gb = Number(root, "lesson_rule_of_thumb", "qlora_overhead_gb");
  c.course_train_tflops_low = Number(root, "course_training_tflops", "low");
  c.course_train_tflops_high = Number(root, "course_training_tflops", "high");
  c.course_datasheet_bf16_tflops = Number(root, "course_training_tflops", "datasheet_bf16_tflops");
  c.course_allreduce_busbw_gbps = Number(root, "course_allreduce_busbw_gbps", "value");
  c.course_lab_gpus = static_cast<int>(Number(root, "course_lab_machine", "gpus"));
  c.course_lab_memory_gib = Number(root, "course_lab_machine", "memory_gib");
  c.vllm_max_num_batched_tokens = static_cast<int>(Number(root, "vllm", "max_num_batched_tokens"));
  c.vllm_max_num_seqs = static_cast<int>(Number(root, "vllm", "max_num_seqs"));
  c.vllm_large_gpu_min_gib = Number(root, "vllm", "large_gpu_min_gib");
  c.vllm_large_max_num_batched_tokens = static_cast<int>(Number(root, "vllm", "large_max_num_batched_tokens"));
  c.vllm_large_max_num_seqs = static_cast<int>(Number(root, "vllm", "large_max_num_seqs"));
  c.vllm_block_size = static_cast<int>(Number(root, "vllm", "block_size"));
  c.vllm_cuda_graph_gib = Number(root, "vllm", "cuda_graph_gib");
  c.serve_min_kv_cache_gib = Number(root, "serve_min_kv_cache_gib", "value");
  c.zero3_max_live_params = Number(root, "deepspeed_zero3", "max_live_parameters");
  c.zero3_prefetch_bucket_params = Number(root, "deepspeed_zero3", "prefetch_bucket_size");
  c.zero3_reduce_bucket_elements = Number(root, "deepspeed_zero3", "reduce_bucket_size");
  c.host_ram_buffer_factor = Number(root, "host_ram", "deepspeed_estimator_buffer_factor");
  return c;
}

}  // namespace

const CalcConstants& CalcConstants::Builtin() {
  static const CalcConstants constants = Load();
  return constants;
}

}  // namespace labcheck::calc
