// The calculators' constants, read once from data/models/calculator_constants.json where each
// one carries its source. Code never types these numbers in.
#pragma once
#include <map>
#include <string>

namespace labcheck::calc {

struct QuantFormat {
  double bits_per_weight = 16;
  int group_size = 0;  // weights per scale; 0 = per channel (negligible)
  double scale_bits = 0;
  double zero_point_bits = 0;
  // Storage bits per quantised weight, scales included.
  double EffectiveBits() const {
    return group_size > 0 ? bits_per_weight + (scale_bits + zero_point_bits) / group_size : bits_per_weight;
  }
};

struct CalcConstants {
  // NF4 with double quantisation: 4 + 8/64 + 32/(64*256) bits.
  double nf4_bits = 0;
  // Of those, the packed 4-bit codes alone: the part that is a parameter's data. The rest (absmax,
  // nested absmax) is bitsandbytes' QuantState, which is no parameter (see ReplicatesNf4QuantState).
  double nf4_data_bits = 0;
  QuantFormat int8;
  QuantFormat int4;
  double adapter_weight_bytes = 0;    // PEFT keeps LoRA weights in FP32
  double adapter_gradient_bytes = 0;
  double cuda_context_gib = 0;
  double nccl_buffers_gib = 0;  // per card of a run over several GPUs, outside PyTorch's allocator
  // What the driver reports as the card's memory, by catalog id, where a source gives it.
  std::map<std::string, double> cuda_total_capacity_gib;
  double allocator_reserve_fraction = 0;
  double lesson_full_bytes_per_param = 0;
  double lesson_full_multiplier = 0;
  double lesson_qlora_bytes_per_param = 0;
  double lesson_qlora_overhead_gb = 0;
  double course_train_tflops_low = 0;
  double course_train_tflops_high = 0;
  double course_datasheet_bf16_tflops = 0;
  double course_allreduce_busbw_gbps = 0;
  int course_lab_gpus = 0;
  double course_lab_memory_gib = 0;
  // vLLM's default gpu_memory_utilization depends on the version: VllmProfileRule::default_utilization.
  int vllm_max_num_batched_tokens = 0;      // `vllm serve` defaults on smaller cards and A100s
  int vllm_max_num_seqs = 0;
  double vllm_large_gpu_min_gib = 0;        // from here up (not A100): the large defaults
  int vllm_large_max_num_batched_tokens = 0;
  int vllm_large_max_num_seqs = 0;
  int vllm_block_size = 0;                  // KV cache tokens per block
  double vllm_cuda_graph_gib = 0;
  double serve_min_kv_cache_gib = 0;
  double zero3_max_live_params = 0;       // DeepSpeed stage3_max_live_parameters
  double zero3_prefetch_bucket_params = 0; // stage3_prefetch_bucket_size
  double zero3_reduce_bucket_elements = 0; // reduce_bucket_size
  double host_ram_buffer_factor = 0;       // DeepSpeed estimator's additional_buffer_factor

  static const CalcConstants& Builtin();
};

}  // namespace labcheck::calc
