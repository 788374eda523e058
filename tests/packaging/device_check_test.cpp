// scripts/device-check.sh as the device tool runs it on a lent GPU machine: from the working tree,
// with a prebuilt binary, whatever else is there or not. Here the "GPU" is the simulated H200
// (tests/sim), which proves the script's plumbing, budget and bundle, never a figure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner/child_process.h"

namespace labcheck {
namespace {
namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct DeviceCheckRun {
  ChildOutcome outcome;
  fs::path out;
  std::vector<std::string> files;
};

// The simulated H200 without real-time pacing: this test watches the script, not load while it
// happens, so the simulated work need not take wall time (the figures are event-timed anyway).
fs::path UnpacedH200(const fs::path& folder) {
  const fs::path source = LAB_CHECK_SOURCE_DIR;
  fs::copy_file(source / "tests/sim/machines/single-h200.json", folder / "single-h200.json");
  std::ofstream(folder / "h200-unpaced.json")
      << R"({"base": "single-h200.json", "pacing": {"copy": 0, "matmul": 0, "collective": 0, "memtest": 0, "load_linger_ms": 0}})";
  return folder / "h200-unpaced.json";
}

// Runs the script into a fresh folder with the given Python ("" for none): on the simulated H200,
// or, with `simulated_gpu` false, on this machine as it is (no driver: every GPU check skips).
DeviceCheckRun RunDeviceCheck(const std::string& python, const std::string& budget_s = "240",
                              bool simulated_gpu = true) {
  DeviceCheckRun run;
  char pattern[] = "/tmp/labcheck_device_check_XXXXXX";
  run.out = mkdtemp(pattern);
  const fs::path source = LAB_CHECK_SOURCE_DIR;
  const fs::path binary = LAB_CHECK_BINARY;
  ChildSpec spec;
  spec.argv = {"bash", (source / "scripts/device-check.sh").string(), (run.out / "out").string()};
  spec.set_env = {{"LAB_CHECK", binary.string()},
                  {"LAB_CHECK_ARGS", "--quick"},
                  {"PYTHON", python},
                  {"BUDGET_S", budget_s}};
  if (simulated_gpu) {
    spec.set_env.push_back({"LD_LIBRARY_PATH", (binary.parent_path() / "sim-nvidia").string()});
    spec.set_env.push_back({"LABCHECK_SIM_MACHINE", UnpacedH200(run.out).string()});
  } else {
    spec.unset_env = {"LD_LIBRARY_PATH", "LABCHECK_SIM_MACHINE"};
  }
  spec.timeout_s = 300;
  run.outcome = RunChild(spec, CancelToken::Never());
  std::error_code ignored;
  for (const auto& entry : fs::recursive_directory_iterator(run.out / "out", ignored))
    if (entry.is_regular_file()) run.files.push_back(entry.path().filename().string());
  return run;
}

void ExpectFitsTheDeviceTool(const DeviceCheckRun& run) {
  // The device tool brings back at most 8 files from $OUT.
  EXPECT_LE(run.files.size(), 8u);
  EXPECT_TRUE(fs::exists(run.out / "out/ratios.md"));
  EXPECT_TRUE(fs::exists(run.out / "out/device-check.tar.gz"));
  EXPECT_TRUE(fs::exists(run.out / "out/lab-report.json"));
  EXPECT_TRUE(fs::exists(run.out / "out/device-check.log"));
}

TEST(DeviceCheck, TableIsMarkedSimulatedAndListsOurFiguresWithoutAReference) {
  // python3 here has Debian's CPU-only torch: the reference step runs and finds no CUDA, so the
  // table has lab_check's figures and "not measured" for the reference, under a SIMULATED header.
  DeviceCheckRun run = RunDeviceCheck("python3");
  ASSERT_TRUE(run.outcome.exited_ok()) << run.outcome.Describe() << "\n" << run.outcome.Tail(40);
  ExpectFitsTheDeviceTool(run);
  EXPECT_NE(ReadAll(run.out / "out/lab-report.json").find("NVIDIA H200"), std::string::npos);
  const std::string table = ReadAll(run.out / "out/ratios.md");
  EXPECT_NE(table.find("SIMULATED"), std::string::npos) << table;
  EXPECT_NE(table.find("NVIDIA H200, CC 9.0"), std::string::npos) << table;
  EXPECT_NE(table.find("| gpu0.matmul_bf16_tflops |"), std::string::npos) << table;
  EXPECT_NE(table.find("not measured"), std::string::npos) << table;
  const std::string log = ReadAll(run.out / "out/device-check.log");
  EXPECT_NE(log.find("nvidia-smi: not found"), std::string::npos) << log;
  EXPECT_NE(log.find("nccl-tests"), std::string::npos) << log;
  fs::remove_all(run.out);
}

// The first line of what `lab_check --version` prints.
std::string BinaryVersionLine() {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY, "--version"};
  ChildOutcome outcome = RunChild(spec, CancelToken::Never());
  return outcome.out.substr(0, outcome.out.find('\n'));
}

TEST(DeviceCheck, WithoutAGpuNoGpuRowIsMetAndTheVersionIsTheBinarys) {
  // This machine has no NVIDIA driver: the full check skips every GPU check, so the table must not
  // judge a GPU row ("yes" for 0 s of GPU section was a pass for nothing measured), must name the
  // binary's own version, and must not print Python's None for a figure that is missing.
  DeviceCheckRun run = RunDeviceCheck("python3", "240", /*simulated_gpu=*/false);
  ASSERT_TRUE(run.outcome.exited_ok()) << run.outcome.Describe() << "\n" << run.outcome.Tail(40);
  const std::string table = ReadAll(run.out / "out/ratios.md");
  EXPECT_EQ(table.find("SIMULATED"), std::string::npos) << table;
  EXPECT_EQ(table.find("None"), std::string::npos) << table;
  EXPECT_EQ(table.find("lab_check ?"), std::string::npos) << table;
  const std::string version = BinaryVersionLine();
  ASSERT_FALSE(version.empty());
  EXPECT_NE(table.find(version), std::string::npos) << version << "\n" << table;
  EXPECT_NE(table.find("| GPU section, s per GPU | — | — | — | ≤ 60 | not measured (no GPU) |"), std::string::npos)
      << table;
  std::istringstream rows(table);
  for (std::string row; std::getline(rows, row);)
    if (row.rfind("| ", 0) == 0) EXPECT_EQ(row.find("| yes |"), std::string::npos) << row;
  fs::remove_all(run.out);
}

TEST(DeviceCheck, BareMachineWithATinyBudgetStillEndsWithATableAndSaysWhatItSkipped) {
  // No Python at all, and 19 s: after the 15 s reserve for the table less than the script's 5 s
  // minimum is left, so the full check is skipped, and the script still bundles, writes a table
  // and says why. (20 s left it exactly 5 s, and a full check on the simulated H200 finishes in
  // about 5 s on an idle machine: the test then passed or failed with the machine's load.)
  DeviceCheckRun run = RunDeviceCheck("", "19");
  ASSERT_TRUE(run.outcome.exited_ok()) << run.outcome.Describe() << "\n" << run.outcome.Tail(40);
  EXPECT_LT(run.outcome.duration_s, 60);
  EXPECT_LE(run.files.size(), 8u);
  EXPECT_TRUE(fs::exists(run.out / "out/device-check.tar.gz"));
  EXPECT_NE(ReadAll(run.out / "out/ratios.md").find("no python3"), std::string::npos);
  const std::string log = ReadAll(run.out / "out/device-check.log");
  EXPECT_NE(log.find("skipped: python3 has no torch"), std::string::npos) << log;
  EXPECT_TRUE(log.find("no time left") != std::string::npos || log.find("timeout") != std::string::npos) << log;
  fs::remove_all(run.out);
}

}  // namespace
}  // namespace labcheck
