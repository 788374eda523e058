// What the five calculator commands share: the environment, model resolution with its error
// path, and printing (text or JSON, never both, so --json output stays parseable).
#pragma once
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "calc/calc_commands.h"
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

// The model block shared by every command's JSON.
nlohmann::json ModelJson(const ModelInput& model);
// "Qwen3-8B (8.19 B параметров; архитектура: <source>)"
std::string ModelLine(const ModelInput& model, Lang lang);

void PrintJson(const nlohmann::json& value, const CommandContext& context);
void PrintTable(const Table& table, const CommandContext& context);
void PrintLine(const std::string& line, const CommandContext& context);

}  // namespace labcheck::calc
