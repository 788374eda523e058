// Every command the shipped advice names runs (issue 56): the course's hints (data/hints.json) and
// every finding's action (data/finding_codes.json, its placeholders filled as node-check fills
// them). lab_check's own commands are parsed by lab_check (`internal-parse-only`); the others are
// held to tests/sim/known_commands.json. The reports' own hints are checked by truth_test.cpp.
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command_lines.h"
#include "platform/files.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;

json Data(const std::string& file) { return json::parse(*ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/data/" + file)); }

std::string Problems(const std::string& where, const std::string& text) {
  std::string out;
  for (const std::string& p : CommandProblems(text)) out += "\n  " + where + ": " + p;
  return out;
}

// What node-check puts in an action's placeholders (node_verdict.cpp, Classify).
std::string Filled(std::string action) {
  const std::map<std::string, std::string> values = {{"{bus}", "00000000:3B:00.0"}, {"{pci}", "0000:3b:00"},
                                                     {"{default_w}", "320"},        {"{serial}", "1650123456789"},
                                                     {"{uuid}", "GPU-5fd0b1b5"},    {"{limit_w}", "300"}};
  for (const auto& [token, value] : values)
    for (size_t at; (at = action.find(token)) != std::string::npos;) action.replace(at, token.size(), value);
  return action;
}

TEST(Commands, TheCoursesHintsNameCommandsThatRun) {
  std::string problems;
  const json hints = Data("hints.json");
  for (const json& h : hints["hints"])
    for (const char* lang : {"en", "ru"}) problems += Problems(h["id"].get<std::string>(), h["action"][lang].get<std::string>());
  EXPECT_EQ(problems, "");
}

TEST(Commands, EveryFindingsActionNamesCommandsThatRun) {
  std::string problems;
  size_t commands = 0;
  const json codes = Data("finding_codes.json");
  for (const json& row : codes["codes"])
    for (const char* lang : {"en", "ru"}) {
      const std::string action = Filled(row["action"][lang].get<std::string>());
      commands += FindCommands(action).size();
      problems += Problems(row["code"].get<std::string>(), action);
    }
  EXPECT_EQ(problems, "");
  EXPECT_GT(commands, 20u) << "the actions name commands; the scan must find them";
}

// The checker itself: it catches a flag a tool does not have, a value outside its set, a check
// --only does not know, and leaves a tool named in prose alone.
TEST(Commands, TheCheckerCatchesWhatWouldNotRun) {
  EXPECT_FALSE(CommandProblems("run `lab_check --only gpu.matmul,gpu.burn` on the node").empty());
  EXPECT_TRUE(CommandProblems("run `lab_check --only gpu.matmul,gpu.health` on the node").empty());
  EXPECT_FALSE(CommandProblems("lab_check --quik").empty());
  EXPECT_TRUE(CommandProblems("lab_check --skip-dist skips the distributed tests").empty());
  EXPECT_FALSE(CommandProblems("nvidia-smi -q -d PERFROMANCE shows why").empty());
  EXPECT_TRUE(CommandProblems("nvidia-smi -q -d PERFORMANCE shows why the clocks dropped").empty());
  EXPECT_FALSE(CommandProblems("sudo systemctl strat nvidia-fabricmanager").empty());
  EXPECT_TRUE(CommandProblems("sudo systemctl enable --now nvidia-fabricmanager; why it stopped: journalctl -u nvidia-fabricmanager").empty());
  EXPECT_FALSE(CommandProblems("pip uninstall --yes-really torch").empty());
  EXPECT_TRUE(CommandProblems("pip uninstall -y torch && pip install torch (steps 2–3)").empty());
  EXPECT_TRUE(CommandProblems("nvidia-smi shows the mode (Compute M.) and the processes").empty());
  EXPECT_FALSE(CommandProblems("sudo modprobe nvidia_uvm (or nvidia-modprobe -u -c=0 -z)").empty());
  EXPECT_EQ(FindCommands("ls -l /dev/nvidia*; sudo dmesg | grep -i -E 'nvrm|xid'; after suspend").size(), 3u);
}

}  // namespace
}  // namespace labcheck::sim
