// The HTML of the real binary on the simulated course machine (tests/sim): the busbw chart with
// its runs and the link ceiling, and a measured-vs-expected chart for every GPU figure of the
// main table. The simulator's figures are test data, never a real card's.
#include <filesystem>

#include <unistd.h>

#include <gtest/gtest.h>

#include "platform/files.h"
#include "report/json_reader.h"
#include "report/report_charts.h"
#include "scenario_support.h"

namespace labcheck {
namespace {

namespace fs = std::filesystem;

bool SimBuilt() { return fs::exists(fs::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia" / "libcuda.so.1"); }

struct SimHtml {
  sim::SimRun run;
  std::string html;
};

SimHtml RunWithHtml(const std::string& machine, std::vector<std::string> args) {
  const fs::path dir = fs::temp_directory_path() / ("labcheck-sim-html-" + std::to_string(::getpid()) + "-" + machine);
  fs::create_directories(dir);
  args.push_back("--html");
  args.push_back((dir / "report.html").string());
  SimHtml out;
  out.run = sim::RunLabCheck({machine, args});
  Result<std::string> html = ReadFile((dir / "report.html").string());
  if (html.ok()) out.html = *html;
  fs::remove_all(dir);
  return out;
}

// The GPU figures of «Ожидалось в курсе → у вас»: rows with a numeric reading (not P2P yes/no).
std::vector<std::string> GpuFigureRows(const nlohmann::json& report) {
  std::vector<std::string> rows;
  for (const nlohmann::json& s : report["sections"]) {
    if (s.value("id", "") != "expectations") continue;
    for (const nlohmann::json& row : s["data"]["rows"]) {
      bool figure = false;
      for (const nlohmann::json& r : row["readings"]) {
        const std::string key = r.value("key", "");
        figure = figure || (key.find(".access") == std::string::npos && key.find("_ok") == std::string::npos);
      }
      if (figure) rows.push_back(row.value("id", ""));
    }
  }
  return rows;
}

TEST(SimHtml, CourseMachineHasTheBusbwChartAndOneChartPerGpuFigure) {
  if (!SimBuilt()) GTEST_SKIP() << "the simulated NVIDIA libraries are not built (cmake --build build --target sim_nvidia)";
  // The full check (not --quick): it sweeps to 1 GiB and compares with NCCL_P2P_DISABLE=1. Only the
  // GPU, interconnect and CPU checks, whose figures the asserted charts draw: the smoke tests, most
  // of the full run's time, have their own tests (tests/smoke) and the page's sections html_writer_test.
  // Unpaced: the page is read after the run, and the all-reduce's two sweeps to 1 GiB paced in real
  // time were 18 s of its 52 (issue 24).
  SimHtml sim = RunWithHtml("course-4x4080-unpaced.json", {"--only", "gpu.*,interconnect.*,cpu.*"});
  ASSERT_TRUE(sim.run.report.is_object()) << sim.run.stderr_text;
  ASSERT_FALSE(sim.html.empty());
  EXPECT_NE(sim.html.find("Симулированная машина (LABCHECK_SIM_MACHINE)"), std::string::npos);
  // Both runs: the first attempt and the comparison with NCCL_P2P_DISABLE=1, and the ceiling.
  EXPECT_NE(sim.html.find("<figure id=\"chart-busbw\""), std::string::npos);
  EXPECT_NE(sim.html.find("без NCCL_P2P_DISABLE"), std::string::npos);
  EXPECT_NE(sim.html.find("NCCL_P2P_DISABLE=1 (для сравнения)"), std::string::npos);
  EXPECT_NE(sim.html.find("предел канала PCIe 4.0 x16: 31.5 GB/s"), std::string::npos);
  const std::vector<std::string> rows = GpuFigureRows(sim.run.report);
  EXPECT_GE(rows.size(), 6u);  // matmul BF16/FP16, memory, CPU→GPU, GPU→CPU, GPU→GPU, all-reduce
  for (const std::string& row : rows) {
    EXPECT_NE(sim.html.find("<figure id=\"chart-expected-" + row), std::string::npos) << row;
  }
  // Every chart the saved JSON yields is in the page.
  for (const ReportChart& c : BuildReportCharts(ReportFromJson(sim.run.report))) {
    EXPECT_NE(sim.html.find("<figure id=\"chart-" + c.id + "\""), std::string::npos) << c.id;
  }
}

TEST(SimHtml, ARetryWithoutP2pIsTheSecondLine) {
  if (!SimBuilt()) GTEST_SKIP() << "the simulated NVIDIA libraries are not built (cmake --build build --target sim_nvidia)";
  // Only the checks the chart draws from: the all-reduce and the host copies (the link ceiling).
  // At 0.12 every budget was so short that, on a loaded machine, the host copies ran out of theirs
  // and the ceiling went missing; the hang costs its stall detector, 30 s x 0.3, either way.
  SimHtml sim = RunWithHtml("course-nccl-hang-p2p.json",
                            {"--quick", "--timeout-scale", "0.3", "--only", "gpu.host_device_copy,interconnect.allreduce"});
  ASSERT_FALSE(sim.html.empty()) << sim.run.stderr_text;
  EXPECT_NE(sim.html.find("без NCCL_P2P_DISABLE — завис"), std::string::npos);
  // The retry's line; on a loaded machine the retry may time out as well and is then named so.
  EXPECT_NE(sim.html.find("NCCL_P2P_DISABLE=1 (повтор)"), std::string::npos);
  EXPECT_NE(sim.html.find("предел канала PCIe 4.0 x16"), std::string::npos);
}

}  // namespace
}  // namespace labcheck
