#include "calc/calc_commands.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "calc/subcommands.h"

namespace labcheck::calc {

void AddCalcSubcommands(CLI::App& app, CalcEnvironment env, int* exit_code) {
  CommandContext context;
  context.env = std::make_shared<const CalcEnvironment>(std::move(env));
  context.exit_code = exit_code;
  AddVramCommand(app, context);
  AddKvCommand(app, context);
  AddServeCommand(app, context);
  AddCostCommand(app, context);
  AddPlanCommand(app, context);
}

}  // namespace labcheck::calc
