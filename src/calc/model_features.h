// "Show the work" (issue 21): the architecture features a figure applied, as read from
// config.json, and the assumptions a command took where neither the config nor the flags decide.
// Both are printed in the text report and in --json, so a reader can tell which rule made a number.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/architecture.h"
#include "core/text.h"

namespace labcheck::calc {

struct WorkNote {
  std::string key;  // stable name for --json: "mla", "moe", "sliding_window", "quantization", ...
  Text text;
};

// What the architecture has that changes parameters, memory or the KV cache.
std::vector<WorkNote> ArchitectureFeatures(const Architecture& arch);

// [{"key": ..., "text": <English>}]
nlohmann::json WorkNotesJson(const std::vector<WorkNote>& notes);
// "Учтено: MLA (...); MoE (...)" — empty when there are no notes.
std::string WorkNotesLine(const Text& title, const std::vector<WorkNote>& notes, Lang lang);

}  // namespace labcheck::calc
