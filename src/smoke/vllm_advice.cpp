#include "smoke/vllm_advice.h"

#include <algorithm>

#include <fmt/format.h>

#include "facts/statements.h"

namespace labcheck::smoke {
namespace {

// The course writes its commands for Qwen3 (course page, «Какие открытые модели брать»); these are
// its dense sizes, in billions of parameters, largest first.
struct Model {
  const char* name;
  double params_b;
};
constexpr Model kQwen3[] = {{"Qwen/Qwen3-32B", 32.8}, {"Qwen/Qwen3-14B", 14.8}, {"Qwen/Qwen3-8B", 8.2},
                            {"Qwen/Qwen3-4B", 4.0},   {"Qwen/Qwen3-1.7B", 1.7}, {"Qwen/Qwen3-0.6B", 0.6}};

// BF16 weights may take this share of the tensor-parallel group's memory; the rest is for the KV
// cache and activations. It puts 32B on 4×32 GB, as the course page does, and 8B on one 24 GB card.
constexpr double kWeightsShare = 0.7;
constexpr int kMaxModelLen = 16384;

}  // namespace

std::optional<ServeAdvice> VllmServeAdvice(const nlohmann::json& facts) {
  if (!facts.is_object() || !facts.contains("devices") || !facts["devices"].is_array()) return std::nullopt;
  const auto& devices = facts["devices"];
  double smallest_gib = 0;
  int count = 0;
  for (const auto& device : devices) {
    if (!device.is_object() || !device.contains("memory_gib") || !device["memory_gib"].is_number()) continue;
    const double gib = device["memory_gib"].get<double>();
    smallest_gib = count == 0 ? gib : std::min(smallest_gib, gib);
    ++count;
  }
  if (count == 0) return std::nullopt;
  // Tensor parallelism splits attention heads evenly: a power of two that the GPUs allow.
  int tp = 1;
  while (tp * 2 <= count && tp * 2 <= 8) tp *= 2;
  const double budget_gib = kWeightsShare * smallest_gib * tp;
  for (const Model& model : kQwen3) {
    const double weights_gib = model.params_b * 1e9 * 2 / (1024.0 * 1024 * 1024);
    if (weights_gib > budget_gib) continue;
    ServeAdvice advice{model.name, tp, {}};
    advice.command = fmt::format("vllm serve {} --tensor-parallel-size {} --max-model-len {} --gpu-memory-utilization 0.90",
                                 model.name, tp, kMaxModelLen);
    return advice;
  }
  return std::nullopt;
}

void AddVllmAdvice(CheckResult& result, const nlohmann::json& facts, const facts::RunFacts* run) {
  Table table;
  table.title = T("vLLM на этой машине", "vLLM on this machine");
  table.columns = {T("что", "what"), T("команда", "command")};
  table.AddRow({T("проверить из окружения vLLM (урок 7.1.2)", "check from the vLLM environment (lesson 7.1.2)"),
                Text("source <venv-vllm>/bin/activate && python -c \"import vllm; print(vllm.__version__)\" && lab_check")});
  if (auto advice = VllmServeAdvice(facts)) {
    table.AddRow({T("сервер с моделью", "serve a model"), Text(advice->command)});
    table.notes.push_back(T(fmt::format("модель — самая большая Qwen3, чьи веса в BF16 занимают не больше {:.0f}% памяти "
                                        "{} GPU; остальное — под KV-кэш",
                                        kWeightsShare * 100, advice->tensor_parallel),
                            fmt::format("the model is the largest Qwen3 whose BF16 weights take at most {:.0f}% of the "
                                        "memory of {} GPU(s); the rest is for the KV cache",
                                        kWeightsShare * 100, advice->tensor_parallel)));
  } else if (run == nullptr || (run->cards.inventory_ran && !run->cards.AnyGpu())) {
    table.notes.push_back(T("GPU нет: vLLM нужна видеокарта; на CPU курс запускает модели через llama.cpp (ступень 7)",
                            "no GPU: vLLM needs one; on a CPU the course runs models with llama.cpp (stage 7)"));
  } else if (const std::optional<Text> why = facts::WhyTorchHasNoGpu(*run)) {
    // The machine has cards: what keeps PyTorch (and so vLLM) from them, not "no GPU".
    table.notes.push_back(T("команды vllm serve нет: " + why->ru, "no vllm serve command: " + why->en));
  }
  result.tables.push_back(std::move(table));
  if (auto advice = VllmServeAdvice(facts)) result.data["vllm_serve_command"] = advice->command;
}

}  // namespace labcheck::smoke
