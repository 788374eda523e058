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

int RunCalcCommandLine(const std::vector<std::string>& args, CalcEnvironment env) {
  CLI::App app("lab_check", "lab_check");
  app.require_subcommand(1);
  int exit_code = -1;
  AddCalcSubcommands(app, std::move(env), &exit_code);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes a vector back to front
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e);
  }
  return exit_code;
}

}  // namespace labcheck::calc
