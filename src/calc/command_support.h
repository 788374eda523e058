// What the five calculator commands share: the environment, model resolution with its error
// path, and printing (text or JSON, never both, so --json output stays parseable).
#pragma once
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_commands.h"
#include "calc/model_features.h"
#include "calc/model_input.h"
#include "calc/training_options.h"
#include "core/table.h"

namespace labcheck::calc {

struct CommandContext {
  std::shared_ptr<const CalcEnvironment> env;
  int* exit_code = nullptr;
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;

  Lang lang() const { return env && env->lang ? *env->lang : Lang::Ru; }
  void Fail(const std::string& message) const;  // prints "lab_check: message" on err, exit code 2
  void Succeed() const { if (exit_code) *exit_code = 0; }
};

// Resolves MODEL or prints why not and sets exit code 2.
std::optional<ModelInput> ResolveOrFail(const std::string& text, const CommandContext& context);

// The training knobs turned into settings, or why not printed with exit code 2.
std::optional<TrainingSettings> SettingsOrFail(const TrainingOptions& options, const CommandContext& context);

// --tokens as a count, or why not printed with exit code 2; `examples` ("1e9 or 500M") ends the message.
std::optional<int64_t> TokenCountOrFail(const std::string& text, const Text& examples, const CommandContext& context);

// The live GPU inventory; empty when there is none or no one supplied it.
std::vector<LiveGpu> LiveGpus(const CommandContext& context);
// The smallest card's memory, which every shard must fit; `gpus` is not empty.
double SmallestMemoryGib(const std::vector<LiveGpu>& gpus);

// What the architecture makes a figure apply; nothing for a bare size.
std::vector<WorkNote> FeaturesOf(const ModelInput& model);

// The model block shared by every command's JSON.
nlohmann::json ModelJson(const ModelInput& model);
// "Qwen3-8B (8.19 B параметров; архитектура: <source>)"
std::string ModelLine(const ModelInput& model, Lang lang);

void PrintJson(const nlohmann::json& value, const CommandContext& context);
void PrintTable(const Table& table, const CommandContext& context);
void PrintLine(const std::string& line, const CommandContext& context);
// "Учтено: ..." and "Допущения: ...", each only when it has notes.
void PrintWorkNotes(const std::vector<WorkNote>& features, const std::vector<WorkNote>& assumptions, const CommandContext& context);
// "По умолчанию: ...", only when a default was taken.
void PrintDefaultsTaken(const std::vector<DefaultTaken>& defaults, const CommandContext& context);

}  // namespace labcheck::calc
