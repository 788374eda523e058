// One registration function per calculator command; calc_commands.cpp calls them all.
#pragma once
#include "core/cli_forward.h"

#include "calc/command_support.h"

namespace labcheck::calc {

void AddVramCommand(CLI::App& app, const CommandContext& context);
void AddKvCommand(CLI::App& app, const CommandContext& context);
void AddServeCommand(CLI::App& app, const CommandContext& context);
void AddCostCommand(CLI::App& app, const CommandContext& context);
void AddPlanCommand(CLI::App& app, const CommandContext& context);

}  // namespace labcheck::calc
