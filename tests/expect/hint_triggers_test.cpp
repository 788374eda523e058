// Every row of the course's table «Если тест не прошёл» is reachable from a measured situation,
// and healthy machines trigger none.
#include "expect/hint_triggers.h"

#include <set>

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace labcheck::expect {
namespace {

using testing::AddCheck;
using testing::Measure;

std::vector<TriggeredHint> Hints(const Report& r) {
  const auto& catalog = reference::GpuCatalog::Builtin();
  const ReportFacts facts = ReadFacts(r, catalog);
  return FindHints(r, facts, Course(), catalog, BuildRows(r, facts, Course(), catalog));
}

const TriggeredHint* Find(const std::vector<TriggeredHint>& hints, hint::Id id) {
  for (const auto& h : hints) {
    if (h.id == id) return &h;
  }
  return nullptr;
}

// The smoke probe's own word that a package is missing (smoke/verdict.cpp keeps it in data.probe).
nlohmann::json PackageMissing(const std::string& package) {
  return {{"status", "skip"}, {"reason", "package_missing"}, {"package", package}};
}

// All situations below, by the hint they must trigger; the last test checks they cover the table.
std::vector<std::pair<hint::Id, Report>> Situations() {
  std::vector<std::pair<hint::Id, Report>> s;
  {  // nvidia-smi sees four cards, PyTorch is a CPU-only build.
    Report r = testing::CourseMachineReport();
    AddCheck(r, "env.python", Outcome::Pass).data["torch_cuda"] = nullptr;
    s.emplace_back(hint::kNoGpuSeen, r);
  }
  {  // CUDA_VISIBLE_DEVICES=0,1,2: NVML lists four, CUDA (and so a CUDA torch) sees three.
    Report r = testing::CourseMachineReport();
    auto& inventory = testing::Inventory(r);
    inventory["nvml_gpus"] = nlohmann::json::array();
    for (int i = 0; i < 4; ++i) inventory["nvml_gpus"].push_back({{"index", i}, {"name", "NVIDIA GeForce RTX 4080"}});
    inventory["gpus"].erase(3);
    inventory["cuda_visible_devices"] = "0,1,2";
    s.emplace_back(hint::kFewerGpus, r);
  }
  {
    Report r = testing::CourseMachineReport();
    testing::RemoveMeasurement(r, "nccl.allreduce_busbw_gbps");
    AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["hung"] = true;
    s.emplace_back(hint::kNcclHang, r);
  }
  {
    Report r = testing::CourseMachineReport();
    Measure(r, "interconnect.allreduce", "nccl.allreduce_ok", 0);
    AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["wrong_sum"] = true;
    s.emplace_back(hint::kWrongSum, r);
  }
  {
    Report r = testing::CourseMachineReport();
    Measure(r, "gpu.matmul", "gpu1.matmul_bf16_tflops", 31);
    s.emplace_back(hint::kMatmulSlow, r);
  }
  {
    Report r = testing::CourseMachineReport();
    Measure(r, "gpu.host_device_copy", "gpu3.h2d_pinned_gbps", 12.6);
    s.emplace_back(hint::kPcieGen3, r);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.lora", Outcome::Skip, "peft не установлен").data["probe"] = PackageMissing("peft");
    s.emplace_back(hint::kLlamaLoraSkip, r);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.qlora", Outcome::Fail).error = "bitsandbytes/libbitsandbytes_cuda124.so: undefined symbol: cget_col_row_stats";
    s.emplace_back(hint::kBitsandbytes, r);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.triton", Outcome::Fail).error = "/tmp/tmpx/main.c:5:10: fatal error: Python.h: No such file or directory";
    s.emplace_back(hint::kTritonCompiler, r);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.vllm", Outcome::Skip, "vllm не установлен").data["probe"] = PackageMissing("vllm");
    s.emplace_back(hint::kVllmSkip, r);
  }
  return s;
}

TEST(Hints, HealthyMachinesTriggerNone) {
  EXPECT_TRUE(Hints(testing::CourseMachineReport()).empty());
  EXPECT_TRUE(Hints(testing::H100Report()).empty());
  EXPECT_TRUE(Hints(testing::CpuOnlyReport()).empty());
  EXPECT_TRUE(Hints(testing::BridgedA100Report()).empty());
}

// Off the course machine, all-reduce is judged against the ring's slowest link. Slow is not hung:
// the hang advice (NCCL_P2P_DISABLE, IOMMU) does not answer it (issue 56); with no link below its
// rating to blame, the row stays flagged for the authors.
TEST(Hints, AllReduceFarBelowItsRingsSlowestLinkIsNoHang) {
  Report r = testing::BridgedA100Report();
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 5.0);  // under half of 12.25
  const auto hints = Hints(r);
  EXPECT_EQ(Find(hints, hint::kNcclHang), nullptr);
  const auto& catalog = reference::GpuCatalog::Builtin();
  const ReportFacts facts = ReadFacts(r, catalog);
  for (const ExpectationRow& row : BuildRows(r, facts, Course(), catalog))
    if (row.id == "allreduce") {
      EXPECT_TRUE(row.flagged());
      EXPECT_NE(row.reference.en.find("slowest link"), std::string::npos) << row.reference.en;
      EXPECT_TRUE(row.local_cause.empty()) << row.local_cause.en;
    }
}

TEST(Hints, EachSituationTriggersItsHint) {
  for (const auto& [id, report] : Situations()) {
    const auto hints = Hints(report);
    EXPECT_NE(Find(hints, id), nullptr) << hint::Key(id);
  }
}

TEST(Hints, EveryRowOfTheCourseTableIsReachable) {
  std::set<hint::Id> reached;
  for (const auto& [id, report] : Situations()) {
    for (const auto& h : Hints(report)) reached.insert(h.id);
  }
  for (hint::Id id : hint::All()) EXPECT_TRUE(reached.count(id)) << hint::Key(id);
}

TEST(NoGpuSeen, NeedsTheDriverToSeeCards) {
  // A machine with no GPU at all: PyTorch without CUDA is not the problem there.
  EXPECT_EQ(Find(Hints(testing::CpuOnlyReport()), hint::kNoGpuSeen), nullptr);
}

TEST(FewerGpus, TheCourseMachineWithThreeVisibleCards) {
  Report r = testing::CourseMachineReport();
  auto& gpus = testing::Inventory(r)["gpus"];
  gpus.erase(gpus.size() - 1);
  AddCheck(r, "env.python", Outcome::Pass).data["torch_cuda"]["device_count"] = 3;
  const auto hints = Hints(r);
  const auto* h = Find(hints, hint::kFewerGpus);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->detail.ru, "видно 3 из 4 карт машины курса");
}

TEST(NcclHang, FromNcclErrorsAndDdpFailuresNotFromASlowAllreduce) {
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["nccl_error"] = "unhandled system error";
    EXPECT_NE(Find(Hints(r), hint::kNcclHang), nullptr);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.ddp", Outcome::Fail).error = "torch.distributed.DistBackendError: NCCL error in: ...";
    EXPECT_NE(Find(Hints(r), hint::kNcclHang), nullptr);
  }
  {  // slow, never hung: not the hang advice (issue 56)
    Report r = testing::CourseMachineReport();
    Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 4.1);
    EXPECT_EQ(Find(Hints(r), hint::kNcclHang), nullptr);
  }
  {
    Report r = testing::CourseMachineReport();
    AddCheck(r, "smoke.ddp", Outcome::Fail).error = "AssertionError: loss differs from single-process run";
    EXPECT_EQ(Find(Hints(r), hint::kNcclHang), nullptr);
  }
}

TEST(WrongSum, FromTheCheckDataAndWinsOverTheHangHint) {
  Report r = testing::CourseMachineReport();
  AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["wrong_sum"] = true;
  const auto hints = Hints(r);
  EXPECT_NE(Find(hints, hint::kWrongSum), nullptr);
  EXPECT_EQ(Find(hints, hint::kNcclHang), nullptr);
}

TEST(MatmulSlow, NamesTheClockEventReasonThatWasRead) {
  Report r = testing::CourseMachineReport();
  Measure(r, "gpu.matmul", "gpu2.matmul_bf16_tflops", 50);  // 26 % below 68: notable, not 2×
  EXPECT_EQ(Find(Hints(r), hint::kMatmulSlow), nullptr);
  AddCheck(r, "gpu.matmul", Outcome::Pass).data["gpus"] = {{{"index", 2}, {"clock_event_reasons", {"power_cap"}}}};
  const auto hints = Hints(r);
  const auto* h = Find(hints, hint::kMatmulSlow);
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->detail.ru.find("лимит мощности"), std::string::npos) << h->detail.ru;
  EXPECT_NE(h->detail.ru.find("GPU 2: 50"), std::string::npos) << h->detail.ru;
}

TEST(MatmulSlow, IdleIsNotAThrottlingReason) {
  Report r = testing::CourseMachineReport();
  Measure(r, "gpu.matmul", "gpu2.matmul_bf16_tflops", 50);
  AddCheck(r, "gpu.matmul", Outcome::Pass).data["gpus"] = {{{"index", 2}, {"clock_event_reasons", {"gpu_idle"}}}};
  EXPECT_EQ(Find(Hints(r), hint::kMatmulSlow), nullptr);
}

TEST(PcieGen3, OnlyWhereTheCardShouldDoBetter) {
  // A T4 is a PCIe 3.0 card: 12.5 GB/s is what it should do.
  Report r = testing::CourseMachineReport();
  for (auto& g : testing::Inventory(r)["gpus"]) {
    g["name"] = "Tesla T4";
    g["memory_total_gib"] = 15.1;
  }
  for (int i = 0; i < 4; ++i) Measure(r, "gpu.host_device_copy", "gpu" + std::to_string(i) + ".h2d_pinned_gbps", 12.5);
  EXPECT_EQ(Find(Hints(r), hint::kPcieGen3), nullptr);
}

TEST(PcieGen3, FromTheLinkTheDriverReports) {
  Report r = testing::CourseMachineReport();
  testing::Inventory(r)["gpus"][1]["pcie_width_max"] = 8;
  const auto hints = Hints(r);
  const auto* h = Find(hints, hint::kPcieGen3);
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->detail.ru.find("PCIe 4.0 x8"), std::string::npos) << h->detail.ru;
}

TEST(SmokeSkips, NotUnderQuickAndNotForLackOfGpu) {
  Report quick = testing::CourseMachineReport();
  quick.meta.quick = true;
  AddCheck(quick, "smoke.lora", Outcome::Skip, "--quick");
  AddCheck(quick, "smoke.vllm", Outcome::Skip, "--quick");
  EXPECT_TRUE(Hints(quick).empty());
  // The CPU-only fixture skips QLoRA and vLLM with "нет GPU": installing packages would not help.
  const auto cpu = Hints(testing::CpuOnlyReport());
  EXPECT_EQ(Find(cpu, hint::kBitsandbytes), nullptr);
  EXPECT_EQ(Find(cpu, hint::kVllmSkip), nullptr);
}

TEST(SmokeSkips, TheProbesOwnReasonDecides) {
  Report r = testing::CourseMachineReport();
  CheckResult& q = AddCheck(r, "smoke.qlora", Outcome::Skip, "что-то пропущено");
  q.data["probe"] = {{"status", "skip"}, {"reason", "gpu_too_old"}};
  CheckResult& v = AddCheck(r, "smoke.vllm", Outcome::Skip, "vllm");
  v.data["probe"] = {{"status", "skip"}, {"reason", "package_missing"}, {"package", "vllm"}};
  CheckResult& l = AddCheck(r, "smoke.lora", Outcome::Skip, "peft");
  l.data["probe"] = {{"status", "skip"}, {"reason", "package_missing"}, {"package", "peft"}};
  const auto hints = Hints(r);
  EXPECT_EQ(Find(hints, hint::kBitsandbytes), nullptr);
  EXPECT_NE(Find(hints, hint::kVllmSkip), nullptr);
  EXPECT_NE(Find(hints, hint::kLlamaLoraSkip), nullptr);
  // QLoRA skipped for a missing peft: the bitsandbytes advice would not help.
  q.data["probe"] = {{"status", "skip"}, {"reason", "package_missing"}, {"package", "peft"}};
  EXPECT_EQ(Find(Hints(r), hint::kBitsandbytes), nullptr);
}

// An interpreter that does not start (issue 56): its smoke tests say so, and no advice to install
// packages into it follows, whatever the words of their reasons.
TEST(SmokeSkips, NoPackageAdviceWhenTheInterpreterDoesNotStart) {
  Report r = testing::CourseMachineReport();
  CheckResult& python = AddCheck(r, "env.python", Outcome::Fail, "the interpreter /x/python does not work: exit code 127");
  python.data = {{"interpreter_unresponsive", {{"python", "/x/python"}, {"stage", ""}, {"ended", "exit code 127"}}}};
  for (const char* id : {"smoke.hf_llama", "smoke.lora", "smoke.vllm"}) AddCheck(r, id, Outcome::Skip, "the interpreter /x/python does not work");
  AddCheck(r, "smoke.qlora", Outcome::Fail, "bitsandbytes: the interpreter /x/python does not work");
  const auto hints = Hints(r);
  for (hint::Id id : {hint::kLlamaLoraSkip, hint::kBitsandbytes, hint::kVllmSkip, hint::kNoGpuSeen})
    EXPECT_EQ(Find(hints, id), nullptr) << hint::Key(id);
}

// torch not installed in the interpreter (the course's virtualenv not activated): the course's
// «GPU не найдены» row, whose action uninstalls torch, does not answer it (issue 56).
TEST(NoGpuSeen, NotForATorchThatIsNotInstalled) {
  Report r = testing::CourseMachineReport();
  CheckResult& python = AddCheck(r, "env.python", Outcome::Warn);
  python.data = {{"python", {{"path", "/usr/bin/python3"}}}, {"packages", {{"torch", nullptr}}}, {"torch_installed", false},
                 {"torch_cuda", nullptr}};
  EXPECT_EQ(Find(Hints(r), hint::kNoGpuSeen), nullptr);
}

TEST(Bitsandbytes, SkipOnAGpuMachine) {
  Report r = testing::CourseMachineReport();
  AddCheck(r, "smoke.qlora", Outcome::Skip, "bitsandbytes не установлен").data["probe"] = PackageMissing("bitsandbytes");
  EXPECT_NE(Find(Hints(r), hint::kBitsandbytes), nullptr);
}

TEST(TritonCompiler, OtherFailuresAreNotACompilerProblem) {
  Report r = testing::CourseMachineReport();
  AddCheck(r, "smoke.torch_compile", Outcome::Fail).error = "RuntimeError: CUDA out of memory";
  EXPECT_EQ(Find(Hints(r), hint::kTritonCompiler), nullptr);
  AddCheck(r, "smoke.torch_compile", Outcome::Fail).error = "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found";
  EXPECT_NE(Find(Hints(r), hint::kTritonCompiler), nullptr);
}

}  // namespace
}  // namespace labcheck::expect
