// Reading the last report for `plan` and `cost --from-report`.
#include <gtest/gtest.h>

#include "calc/calc_constants.h"
#include "calc/machine_report.h"
#include "calc/throughput.h"

namespace labcheck::calc {
namespace {

const char* kReport = R"({"schema_version": 1, "meta": {"finished_at": "2026-12-02T14:10:00Z"},
  "checks": [
    {"id": "gpu.inventory", "measurements": [{"key": "gpu0.memory_total_gib", "value": 31.99}],
     "data": {"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4080", "memory_total_gib": 31.99}]}},
    {"id": "gpu.matmul", "measurements": [{"key": "gpu0.matmul_bf16_tflops", "value": 75.5},
                                          {"key": "gpu1.matmul_bf16_tflops", "value": 74.0}]},
    {"id": "interconnect.allreduce", "measurements": [{"key": "nccl.allreduce_busbw_gbps", "value": 11.2}]},
    {"id": "smoke.llama", "measurements": [{"key": "smoke.llama.train_tflops", "value": 31.4},
                                           {"key": "smoke.llama.tokens_per_s", "value": null}]},
    "not an object"
  ]})";

TEST(MachineReportTest, ReadsTheFiguresItKnows) {
  auto report = ParseMachineReport(kReport, "journal/lab-report.json");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->train_tflops, 31.4);
  EXPECT_EQ(report->allreduce_busbw_gbps, 11.2);
  EXPECT_EQ(report->matmul_bf16_tflops, (std::vector<double>{75.5, 74.0}));
  ASSERT_EQ(report->gpus.size(), 1u);
  EXPECT_EQ(report->gpus[0].name, "NVIDIA GeForce RTX 4080");
}

TEST(MachineReportTest, MissingFiguresStayUnsetAndBrokenFilesAreErrors) {
  auto empty = ParseMachineReport(R"({"checks": []})", "r");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->train_tflops.has_value());
  EXPECT_FALSE(ParseMachineReport("[1, 2", "r").ok());
  EXPECT_FALSE(ReadMachineReport("/nonexistent/lab-report.json").ok());
}

TEST(MachineReportTest, ThroughputPrefersMeasurementThenDatasheetThenCourse) {
  const CalcConstants& k = CalcConstants::Builtin();
  auto report = ParseMachineReport(kReport, "r").value();
  EXPECT_EQ(ResolveThroughput(12.0, &report, nullptr, k).tflops_low, 12.0);
  EXPECT_EQ(ResolveThroughput(std::nullopt, &report, nullptr, k).tflops_low, 31.4);
  reference::GpuSpec h100;
  h100.name = "H100";
  h100.bf16_tflops = 195;  // half of 390: the course's 20-40 of 97.5 scales to 40-80
  const Throughput scaled = ResolveThroughput(std::nullopt, nullptr, &h100, k);
  EXPECT_DOUBLE_EQ(scaled.tflops_low, 40);
  EXPECT_DOUBLE_EQ(scaled.tflops_high, 80);
  const Throughput course = ResolveThroughput(std::nullopt, nullptr, nullptr, k);
  EXPECT_EQ(course.tflops_low, 20);
  EXPECT_EQ(course.tflops_high, 40);
}

}  // namespace
}  // namespace labcheck::calc
