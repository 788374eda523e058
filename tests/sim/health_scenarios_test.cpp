// gpu.health, env.compat and lab_check burn through the real binary on simulated machines
// (machines/health-faults.json, burn-hot-and-slow.json, burn-wrong-product.json).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;

// The health line of `gpu` for `item`, from gpu.health's data.
json HealthLine(const SimRun& run, int gpu, const std::string& item) {
  const json* c = Check(run, "gpu.health");
  if (c == nullptr) return json();
  for (const json& line : (*c)["data"]["lines"])
    if (line["gpu"] == gpu && line["item"] == item) return line;
  return json();
}

TEST(SimHealth, EachFaultYieldsItsVerdictAndHint) {
  SimRun run = RunLabCheck({"health-faults.json", {"--quick", "--only", "gpu.health,env.compat"}});
  ASSERT_TRUE(run.report.is_object()) << run.stderr_text;
  EXPECT_EQ(Verdict(run, "gpu.health"), "FAIL") << CheckText(run, "gpu.health");
  EXPECT_NE(Check(run, "env.compat"), nullptr);  // the full check has both sections
  // --python /bin/false: the library search went on without its site-packages, and says why.
  EXPECT_NE(run.markdown.find("site-packages Python не просмотрены: интерпретатор /bin/false не работает"),
            std::string::npos);

  struct Expected {
    int gpu;
    const char* item;
    const char* status;
    const char* hint_part;
  };
  for (const Expected& e : {Expected{0, "ecc_uncorrected", "FAIL", "RMA"},
                            Expected{0, "xid_during_run", "FAIL", "xid-errors"},
                            Expected{0, "retired_pages", "WARN", "PAGE_RETIREMENT"},
                            Expected{1, "remapped_rows", "WARN", "nvidia-smi -r -i 00000000:41:00.0"},
                            Expected{1, "xid_during_run", "WARN", "xid-errors"},
                            Expected{2, "pcie_replay", "WARN", "riser"},
                            Expected{2, "compute_mode", "WARN", "-c DEFAULT"},
                            Expected{3, "power_limit", "WARN", "sudo nvidia-smi -i 00000000:C1:00.0 -pl 320"},
                            Expected{3, "other_processes", "WARN", "nvidia-smi"}}) {
    json line = HealthLine(run, e.gpu, e.item);
    ASSERT_TRUE(line.is_object()) << e.gpu << " " << e.item;
    EXPECT_EQ(line["status"], e.status) << e.gpu << " " << e.item << ": " << line.dump();
    EXPECT_NE(line["hint"].get<std::string>().find(e.hint_part), std::string::npos) << line.dump();
  }
  // Read through a real address buffer: the sim, as nvml.h's return list says, refuses a NULL one.
  EXPECT_NE(HealthLine(run, 0, "retired_pages")["value"].get<std::string>().find("3 ("), std::string::npos)
      << HealthLine(run, 0, "retired_pages").dump();
  EXPECT_NE(HealthLine(run, 3, "other_processes")["value"].get<std::string>().find("4242"), std::string::npos);
  EXPECT_NE(HealthLine(run, 3, "other_processes")["value"].get<std::string>().find("20.0 GiB"), std::string::npos);
  // GeForce cards without ECC: N/A, never a failure.
  EXPECT_EQ(HealthLine(run, 1, "ecc_uncorrected")["status"], "N/A");
  EXPECT_EQ(HealthLine(run, 2, "mig_mode")["status"], "N/A");
  EXPECT_EQ(HealthLine(run, 0, "pcie_downtrain")["status"], "PASS");
}

TEST(SimHealth, ANormalMachineIsHealthy) {
  SimRun run = RunLabCheck({"single-h200.json", {"--quick", "--only", "gpu.health"}});
  EXPECT_EQ(Verdict(run, "gpu.health"), "PASS") << CheckText(run, "gpu.health");
}

json BurnReport(const SimRun& run) {
  const size_t start = run.stdout_text.find('{');
  if (start == std::string::npos) return json();
  return json::parse(run.stdout_text.substr(start), nullptr, false);
}

TEST(SimBurn, ThermalSlowdownAndASlowerCardAreNamedOnTheSimulatedClock) {
  SimRun run = RunLabCheck({"burn-hot-and-slow.json", {"--lang", "en", "burn", "--minutes", "1.5", "--json"}});
  json report = BurnReport(run);
  ASSERT_TRUE(report.is_object()) << run.stdout_text << run.stderr_text;
  // 90 s of modelled GPU time in far less real time: minutes are device time.
  EXPECT_LT(run.wall_s, 80);
  const json& burn = report["checks"][0];
  EXPECT_EQ(burn["id"], "gpu.burn");
  EXPECT_EQ(burn["status"], "WARN") << burn.dump().substr(0, 2000);
  const std::string reason = burn["reason"];
  EXPECT_NE(reason.find("GPU0: "), std::string::npos) << reason;
  EXPECT_NE(reason.find("overheating (thermal)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("GPU1 (NVIDIA GeForce RTX 4080) is 12% slower than the best card"), std::string::npos) << reason;
  EXPECT_NE(burn["hint"].get<std::string>().find("sudo nvidia-smi -i 00000000:01:00.0 -pl 245"), std::string::npos) << burn["hint"];
  const json& data = burn["data"];
  EXPECT_EQ(data["interval_s"], 1.0);
  ASSERT_EQ(data["gpus"].size(), 2u);
  const json& samples = data["gpus"][0]["samples"];
  EXPECT_GE(samples.size(), 89u);
  EXPECT_NEAR(samples[5]["tflops"].get<double>(), 75, 4);
  EXPECT_NEAR(samples.back()["tflops"].get<double>(), 52.5, 4);
  EXPECT_EQ(samples.back()["temperature_c"], 89);
  EXPECT_EQ(samples.back()["fan_percent"], 100);
  EXPECT_EQ(samples.back()["clock_event_reasons"], json({"thermal"}));
  EXPECT_EQ(samples[5]["mem_clock_mhz"], 11201);
  EXPECT_EQ(data["verdicts"][0]["cause"], "thermal");
}

TEST(SimBurn, AWrongProductUnderLoadFails) {
  SimRun run = RunLabCheck({"burn-wrong-product.json", {"--lang", "en", "burn", "--quick", "--json"}});
  json report = BurnReport(run);
  ASSERT_TRUE(report.is_object()) << run.stdout_text << run.stderr_text;
  EXPECT_EQ(run.exit_code, 1);
  const json& burn = report["checks"][0];
  EXPECT_EQ(burn["status"], "FAIL");
  EXPECT_NE(burn["reason"].get<std::string>().find("GPU1 computes wrong results under load"), std::string::npos) << burn["reason"];
  EXPECT_EQ(burn["data"]["verdicts"][0]["wrong"], 0);
}

TEST(SimBurn, CtrlCKeepsWhatWasSampled) {
  // SIGINT, as a terminal's Ctrl-C, while a 30-minute burn runs, once its private timeline
  // (lab_burn*) holds a sample.
  const InterruptedRun run = RunAndInterrupt("burn-wrong-product.json",
                                             "--lang en burn --minutes 30 --json --python /bin/false",
                                             "lab_burn*/timeline.jsonl", "sample");
  const json& report = run.report;
  EXPECT_EQ(run.exit_code, 130) << run.err;
  ASSERT_TRUE(report.is_object());
  const json& burn = report["checks"][0];
  EXPECT_EQ(burn["data"]["interrupted"], true);
  EXPECT_GE(burn["data"]["gpus"][0]["samples"].size(), 1u) << burn.dump().substr(0, 1000);
  EXPECT_EQ(report["meta"]["interrupted"], true);
}

}  // namespace
}  // namespace labcheck::sim
