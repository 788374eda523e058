// The machine serve and plan plan for (issue 52: the calculators before the cards arrive).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "calc/planned_machine.h"
#include "calc_cli.h"
#include "platform/files.h"

namespace labcheck::calc {
namespace {

const CalcConstants& k = CalcConstants::Builtin();

TEST(PlannedMachineTest, TheFlagsThenThisMachineThenTheCourses) {
  const std::vector<LiveGpu> here = {{"NVIDIA GeForce RTX 4090", 23.5}, {"NVIDIA GeForce RTX 4090", 23.4}};
  // --gpu alone: one card of that kind, at the memory it is sold with.
  PlannedMachine m = ChooseMachine({0, "h100-sxm", 0}, here, k);
  EXPECT_EQ(m.origin, MachineOrigin::Flags);
  EXPECT_EQ(m.gpus, 1);
  ASSERT_NE(m.card, nullptr);
  EXPECT_EQ(m.card->id, "h100-sxm");
  EXPECT_DOUBLE_EQ(m.memory_gib, m.card->memory_gib);
  // --gpu-mem with --gpus, whatever this machine has.
  m = ChooseMachine({2, "", 24}, here, k);
  EXPECT_EQ(m.origin, MachineOrigin::Flags);
  EXPECT_EQ(m.gpus, 2);
  EXPECT_DOUBLE_EQ(m.memory_gib, 24);
  // This machine: the smallest card bounds every shard; --gpus takes no more than there are.
  m = ChooseMachine({8, "", 0}, here, k);
  EXPECT_EQ(m.origin, MachineOrigin::ThisMachine);
  EXPECT_EQ(m.gpus, 2);
  EXPECT_DOUBLE_EQ(m.memory_gib, 23.4);
  // Nothing here and nothing given: the course's 4 x 32 GiB, and the line says so.
  m = ChooseMachine({}, {}, k);
  EXPECT_EQ(m.origin, MachineOrigin::CourseMachine);
  EXPECT_EQ(m.gpus, 4);
  EXPECT_DOUBLE_EQ(m.memory_gib, 32);
  EXPECT_NE(m.source.In(Lang::En).find("the course's machine, 4 × 32 GiB"), std::string::npos);
  EXPECT_EQ(ChooseMachine({2, "", 0}, {}, k).gpus, 2);
}

TEST(PlannedMachineTest, AnUnknownCardNamesTheKnownOnes) {
  EXPECT_FALSE(UnknownGpuIdError("").has_value());
  EXPECT_FALSE(UnknownGpuIdError("rtx-4080-32gb").has_value());
  const std::optional<Text> error = UnknownGpuIdError("rtx-9090");
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->In(Lang::En).find("h100-sxm"), std::string::npos);
}

// The issue's case: plan qwen3-14b --method lora on a machine without a GPU.
TEST(PlannedMachineTest, PlanWithoutAGpuPlansForTheCourseMachineAndSaysSo) {
  const testing::CliRun text = testing::RunCalc({"plan", "qwen3-14b", "--method", "lora"}, Lang::En);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("assuming the course's machine, 4 × 32 GiB"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("One copy is sharded over 2 cards (FSDP), copies: 2."), std::string::npos) << text.out;
  const testing::CliRun json = testing::RunCalc({"plan", "qwen3-14b", "--method", "lora", "--json"}, Lang::En);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["gpu_origin"], "course_machine");
  ASSERT_EQ(j["gpus"].size(), 4u);
  EXPECT_EQ(j["gpus"][0]["memory_total_gib"], 32);
}

// Cards given on the command line are not this machine's: its last report's speed and
// interconnect do not apply to them, the card's datasheet and the course's figures do.
TEST(PlannedMachineTest, PlanForGivenCardsLeavesThisMachinesReportAside) {
  const std::string dir = *MakePrivateTempDir("lab_check_plan_");
  const std::string report = dir + "/lab-report.json";
  ASSERT_TRUE(WriteFileAtomically(report, R"({"schema_version": 1, "meta": {"finished_at": "2026-12-02T14:10:00Z"},
    "checks": [{"id": "smoke.llama", "measurements": [{"key": "smoke.llama.train_tflops", "value": 31.4}]},
               {"id": "interconnect.allreduce", "measurements": [{"key": "nccl.allreduce_busbw_gbps", "value": 11.2}]}]})").ok());
  const std::vector<LiveGpu> here = {{"NVIDIA GeForce RTX 4080", 31.99}, {"NVIDIA GeForce RTX 4080", 31.99}};
  const testing::CliRun own = testing::RunCalc({"plan", "qwen3-8b", "--json"}, Lang::En, here, report);
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(nlohmann::json::parse(own.out)["tflops_per_gpu"]["low"], 31.4);
  const testing::CliRun given = testing::RunCalc({"plan", "qwen3-8b", "--gpu", "h100-sxm", "--gpus", "2", "--json"}, Lang::En, here, report);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const nlohmann::json j = nlohmann::json::parse(given.out);
  EXPECT_EQ(j["gpu_origin"], "flags");
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][0]["name"], "NVIDIA H100 SXM5 80 GB");
  EXPECT_NE(j["tflops_per_gpu"]["source"].get<std::string>().find("reference: NVIDIA H100 SXM5 80 GB"), std::string::npos) << given.out;
  EXPECT_EQ(j["allreduce_busbw_gbps"]["value"], k.course_allreduce_busbw_gbps);
  const testing::CliRun text = testing::RunCalc({"plan", "qwen3-8b", "--gpu-mem", "24", "--gpus", "2"}, Lang::En, here, report);
  EXPECT_NE(text.out.find("GPUs as given on the command line"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("is this machine's, not the planned one's"), std::string::npos) << text.out;
  RemoveTree(dir);
}

TEST(PlannedMachineTest, PlanRefusesAnUnknownCard) {
  const testing::CliRun run = testing::RunCalc({"plan", "qwen3-8b", "--gpu", "rtx-9090"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--gpu \"rtx-9090\" is not a card of data/gpus.json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace labcheck::calc
