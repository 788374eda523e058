// The course's table «Если тест не прошёл» ("If a test failed"): one hint per row, addressable by a
// stable id. The texts live in data/hints.json (Russian verbatim from the course page, English
// translated); checks attach them to their results, the expectations analyser to flagged rows.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "core/text.h"

namespace labcheck::hint {

// One id per row of the course's table, in its order. Use as hint::kNcclHang.
enum Id {
  kNoGpuSeen,       // «GPU не найдены», хотя nvidia-smi видит карты
  kFewerGpus,       // PyTorch видит меньше 4 карт
  kNcclHang,        // all-reduce, DDP или FSDP зависает либо падает с ошибкой NCCL
  kWrongSum,        // all-reduce вернул неверную сумму
  kMatmulSlow,      // матмул сильно ниже ориентира
  kPcieGen3,        // CPU→GPU около 12–13 ГБ/с
  kLlamaLoraSkip,   // Llama и LoRA — SKIP
  kBitsandbytes,    // 4 бита — SKIP или ошибка undefined symbol
  kTritonCompiler,  // Triton или torch.compile — ошибка про Python.h или компилятор
  kVllmSkip,        // vLLM — SKIP
};
inline constexpr int kCount = kVllmSkip + 1;

// What to do (the table's column «Что делать»). This is what a check puts in CheckResult::hint.
Text Action(Id id);
// What the user sees (the column «Что видите»), for tables that show the symptom too.
Text Symptom(Id id);
// The id as stored in data/hints.json and in JSON reports: "nccl_hang".
std::string_view Key(Id id);
std::optional<Id> FromKey(std::string_view key);
std::vector<Id> All();

}  // namespace labcheck::hint
