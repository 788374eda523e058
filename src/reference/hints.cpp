#include "reference/hints.h"

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "reference/reference_data.h"

namespace labcheck::hint {
namespace {

// Must follow the order of enum Id; a test checks that every key has an entry in hints.json.
constexpr std::array<std::string_view, kCount> kKeys = {
    "no_gpu_seen",     "fewer_gpus",      "nccl_hang",     "wrong_sum",
    "matmul_slow",     "pcie_gen3",       "llama_lora_skip", "bitsandbytes",
    "triton_compiler", "vllm_skip",
};

struct Entry {
  Text symptom;
  Text action;
};

Text ReadText(const nlohmann::json& object) {
  return Text(object.value("ru", ""), object.value("en", ""));
}

const std::array<Entry, kCount>& Entries() {
  static const std::array<Entry, kCount> entries = [] {
    std::array<Entry, kCount> out{};
    // A parse failure leaves empty texts; tests parse the embedded file, so it cannot ship broken.
    const auto root = nlohmann::json::parse(reference::ReferenceFile("hints.json"), nullptr, false);
    if (root.is_discarded() || !root.contains("hints")) return out;
    for (const auto& h : root["hints"]) {
      const std::optional<Id> id = FromKey(h.value("id", ""));
      if (!id || !h.contains("symptom") || !h.contains("action")) continue;
      out[*id] = Entry{ReadText(h["symptom"]), ReadText(h["action"])};
    }
    return out;
  }();
  return entries;
}

}  // namespace

Text Action(Id id) { return Entries().at(id).action; }
Text Symptom(Id id) { return Entries().at(id).symptom; }
std::string_view Key(Id id) { return kKeys.at(id); }

std::optional<Id> FromKey(std::string_view key) {
  for (int i = 0; i < kCount; ++i) {
    if (kKeys[i] == key) return static_cast<Id>(i);
  }
  return std::nullopt;
}

std::vector<Id> All() {
  std::vector<Id> ids;
  for (int i = 0; i < kCount; ++i) ids.push_back(static_cast<Id>(i));
  return ids;
}

}  // namespace labcheck::hint
