// The rows of «Ожидалось в курсе → у вас»: the right reference for each machine, the worst card
// deciding the flag, rows for unknown GPUs and for machines without one.
#include "expect/expectation_rows.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace labcheck::expect {
namespace {

using testing::AddCheck;
using testing::Measure;

std::vector<ExpectationRow> Rows(const Report& r) {
  const auto& catalog = reference::GpuCatalog::Builtin();
  return BuildRows(r, ReadFacts(r, catalog), Course(), catalog);
}

const ExpectationRow& Row(const std::vector<ExpectationRow>& rows, const std::string& id, const std::string& model = "") {
  for (const auto& row : rows) {
    if (row.id == id && (model.empty() || row.gpu_model == model)) return row;
  }
  ADD_FAILURE() << "no row " << id << " " << model;
  static const ExpectationRow kNone;
  return kNone;
}

TEST(CourseMachine, CardsThatRoundToOneFigureShowItOnce) {
  Report r = testing::CourseMachineReport();
  for (int i = 0; i < 4; ++i) testing::Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_bf16_tflops", i), 74.98 + 0.01 * i, "TFLOPS");
  EXPECT_EQ(Row(Rows(r), "matmul_bf16").measured.en, "75 (4)");
}

TEST(CourseMachine, RowsCarryTheCoursePagesFiguresVerbatim) {
  const auto rows = Rows(testing::CourseMachineReport());
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_EQ(bf16.reference.ru, "паспорт 97.5; реально 68–83 (70–85% паспорта)");
  EXPECT_EQ(bf16.gpu_model, "rtx-4080-32gb");
  EXPECT_TRUE(bf16.course_machine);
  EXPECT_TRUE(bf16.modified_card);
  EXPECT_EQ(bf16.readings.size(), 4u);
  EXPECT_EQ(bf16.measured.ru, "73.8–75.3 (4)");
  EXPECT_FALSE(bf16.flagged());
  EXPECT_EQ(Row(rows, "memory_copy").reference.ru, "паспорт 716.8; реально 570–650 (80–90%)");
  EXPECT_DOUBLE_EQ(Row(rows, "memory_copy").band->low, 570);
  EXPECT_EQ(Row(rows, "h2d").reference.ru,
            "предел PCIe 4.0 x16 около 32; на практике обычно 20–26. Около 12–13 — признак PCIe 3.0 или x8");
  EXPECT_EQ(Row(rows, "p2p").reference.ru, "на GeForce обычно «нет», это нормально");
  EXPECT_EQ(Row(rows, "p2p").measured.ru, "нет (0 из 12 пар)");
  EXPECT_EQ(Row(rows, "gpu_to_gpu").reference.ru,
            "без P2P данные идут через память процессора и обычно не быстрее, чем CPU→GPU");
  EXPECT_EQ(Row(rows, "allreduce").reference.ru, "в расчётах уроков подставлено условное W = 10; предел PCIe около 32");
  EXPECT_EQ(Row(rows, "llama_train").reference.ru, "в оценках времени уроков 20–40");
  for (const auto& row : rows) EXPECT_FALSE(row.flagged()) << row.id;
}

// Issue 20: the memory row judges the card by the SM copy kernel; the driver's copy (copy engine)
// is read only for a GPU without an SM figure (a driver that cannot load kernels, an older report).
TEST(MemoryRow, TheSmCopyJudgesTheCardAndTheDriversCopyIsTheFallback) {
  Report r = testing::H100Report();  // driver's copy 2900 on every GPU: inside 2680–3015
  for (int i = 0; i < 8; ++i)
    Measure(r, "gpu.memory_bandwidth", fmt::format("gpu{}.memory_copy_gbps", i), 1400, "GB/s");  // a slow copy engine
  for (int i = 0; i < 7; ++i)
    Measure(r, "gpu.memory_bandwidth", fmt::format("gpu{}.memory_kernel_copy_gbps", i), 2950, "GB/s");
  const auto rows = Rows(r);
  const ExpectationRow& row = Row(rows, "memory_copy");
  ASSERT_EQ(row.readings.size(), 8u);
  EXPECT_EQ(row.readings[0].key, "gpu0.memory_kernel_copy_gbps");
  EXPECT_DOUBLE_EQ(row.readings[0].value, 2950);
  EXPECT_EQ(row.readings[7].key, "gpu7.memory_copy_gbps");  // no SM figure on GPU 7
  EXPECT_NE(row.note.en.find("driver's copy"), std::string::npos) << row.note.en;
  EXPECT_EQ(row.worst_where, "GPU 7");
}

TEST(CourseMachine, StockRtx4080GetsTheCourseFiguresWithoutTheModifiedCardMark) {
  Report r = testing::CourseMachineReport();
  for (auto& g : testing::Inventory(r)["gpus"]) g["memory_total_gib"] = 15.99;
  const auto rows = Rows(r);
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_EQ(bf16.gpu_model, "rtx-4080");
  EXPECT_TRUE(bf16.course_machine);
  EXPECT_FALSE(bf16.modified_card);
}

TEST(OtherGpus, H100RowsComeFromItsDatasheetAndLink) {
  const auto rows = Rows(testing::H100Report());
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_EQ(bf16.gpu_model, "h100-sxm");
  EXPECT_FALSE(bf16.course_machine);
  EXPECT_NEAR(bf16.band->low, 989.5 * 0.70, 1e-9);
  EXPECT_NEAR(bf16.band->high, 989.5 * 0.85, 1e-9);
  EXPECT_EQ(bf16.reference.ru, "паспорт 989.5; реально 693–841 (70–85% паспорта)");
  EXPECT_EQ(Row(rows, "h2d").band->low, 40);  // PCIe 5.0 x16
  EXPECT_NE(Row(rows, "h2d").reference.ru.find("PCIe 5.0 x16"), std::string::npos);
  EXPECT_EQ(Row(rows, "p2p").reference.ru, "по NVLink — «да» (все пары)");
  // NV18: 18 × 25 GB/s = 450 one way (the datasheet's 900 both ways), realistic 80–90 % of it.
  EXPECT_DOUBLE_EQ(Row(rows, "gpu_to_gpu").band->low, 360);
  EXPECT_DOUBLE_EQ(Row(rows, "gpu_to_gpu").band->high, 405);
  EXPECT_FALSE(Row(rows, "gpu_to_gpu").flagged());
  // All-reduce against the ring's slowest link (NVLink here), not the lessons' W = 10 of a PCIe
  // machine; the lessons' 20–40 TFLOPS per card stays what it is: an H100 is far above it.
  EXPECT_DOUBLE_EQ(Row(rows, "allreduce").band->low, 360);
  EXPECT_FALSE(Row(rows, "allreduce").flagged());
  EXPECT_NE(Row(rows, "allreduce").reference.en.find("W = 10"), std::string::npos);
  EXPECT_EQ(Row(rows, "llama_train").worst->level, Level::OffHigh);
  EXPECT_FALSE(bf16.flagged());
}

// Bridged pairs at NVLink speed and the others through host memory, each as its link says: no
// "> 2× higher" against a machine-wide no-P2P reference, no "P2P over NVLink was expected".
TEST(PerPair, BridgedPairsAreJudgedAgainstTheirOwnLinks) {
  const auto rows = Rows(testing::BridgedA100Report());
  const auto& copies = Row(rows, "gpu_to_gpu");
  EXPECT_FALSE(copies.flagged()) << copies.FlagCell().en;
  EXPECT_FALSE(copies.band.has_value());  // the pairs differ: each reading carries its own
  for (const Reading& r : copies.readings) {
    ASSERT_TRUE(r.band.has_value()) << r.where;
    if (r.where == "GPU 0→1") {
      EXPECT_DOUBLE_EQ(r.band->low, 240);  // NV12 × 25 × 0.8
    } else if (r.where == "GPU 1→2") {
      EXPECT_DOUBLE_EQ(r.band->high, 26);  // through host memory over the rated PCIe 4.0 x16
    }
  }
  EXPECT_NE(copies.reference.en.find("NV12"), std::string::npos) << copies.reference.en;
  EXPECT_NE(copies.reference.en.find("GPU 0↔1, 2↔3"), std::string::npos) << copies.reference.en;
  const auto& p2p = Row(rows, "p2p");
  EXPECT_FALSE(p2p.flagged());
  EXPECT_TRUE(p2p.note.empty()) << p2p.note.en;
  EXPECT_EQ(p2p.reference.en, "over NVLink: “yes” (GPU 0↔1, 2↔3); over PCIe it depends on the platform");
  EXPECT_EQ(p2p.measured.en, "partly (4 of 12 pairs)");
}

TEST(PerPair, ABrokenBridgeIsNamed) {
  Report r = testing::BridgedA100Report();
  testing::SetTopology(r, {{"X", "NV12", "SYS", "SYS"}, {"NV12", "X", "SYS", "SYS"}, {"SYS", "SYS", "X", "NV4"}, {"SYS", "SYS", "NV4", "X"}});
  for (const char* pair : {"2-3", "3-2"}) {
    Measure(r, "gpu.p2p", std::string("p2p.") + pair + ".access", 0, "0/1");
    Measure(r, "gpu.p2p", std::string("p2p.") + pair + ".copy_gbps", 19.5, "GB/s");
  }
  const auto rows = Rows(r);
  const auto& copies = Row(rows, "gpu_to_gpu");
  ASSERT_TRUE(copies.flagged());
  EXPECT_EQ(copies.worst->level, Level::OffLow);
  EXPECT_TRUE(copies.worst_where == "GPU 2→3" || copies.worst_where == "GPU 3→2") << copies.worst_where;
  const auto& p2p = Row(rows, "p2p");
  ASSERT_TRUE(p2p.failure.has_value());
  EXPECT_EQ(p2p.failure->en, "no P2P over NVLink (GPU 2↔3)");
  EXPECT_NE(p2p.note.en.find("GPU 2↔3: NVLink NV4 but no P2P"), std::string::npos) << p2p.note.en;
  EXPECT_NE(p2p.note.en.find("12 links"), std::string::npos) << p2p.note.en;
  EXPECT_EQ(p2p.note.en.find("0↔1"), std::string::npos) << p2p.note.en;
}

TEST(PerPair, GeforceBridgesSayWhereNoIsNormal) {
  Report r = testing::BridgedA100Report();
  for (auto& g : testing::Inventory(r)["gpus"]) {
    g["name"] = "NVIDIA GeForce RTX 3090";
    g["memory_total_gib"] = 24.0;
  }
  testing::SetTopology(r, {{"X", "NV4", "NODE", "NODE"}, {"NV4", "X", "NODE", "NODE"}, {"NODE", "NODE", "X", "NV4"}, {"NODE", "NODE", "NV4", "X"}});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j && i / 2 == j / 2) Measure(r, "gpu.p2p", "p2p." + std::to_string(i) + "-" + std::to_string(j) + ".copy_gbps", 50);
  const auto rows = Rows(r);
  EXPECT_EQ(Row(rows, "p2p").reference.ru, "по NVLink — «да» (GPU 0↔1, 2↔3); по PCIe на GeForce обычно «нет», это нормально");
  EXPECT_FALSE(Row(rows, "gpu_to_gpu").flagged());  // 50 of NV4's 56.25: in band, not "2× the PCIe figure"
  EXPECT_FALSE(Row(rows, "p2p").flagged());
}

// nccl-tests: busbw "should reflect the speed of the hardware bottleneck". Bridged pairs do not
// lift a ring that must cross the sockets through host memory.
TEST(PerPair, AllReduceIsBoundByTheRingsSlowestLink) {
  const auto rows = Rows(testing::BridgedA100Report());
  const auto& ar = Row(rows, "allreduce");
  ASSERT_TRUE(ar.band.has_value());
  EXPECT_DOUBLE_EQ(ar.band->high, 26);  // PCIe 4.0 x16 as rated, in practice 20–26; from 20 / 2
  EXPECT_DOUBLE_EQ(ar.band->low, 10);
  EXPECT_FALSE(ar.course_machine);
  EXPECT_FALSE(ar.flagged());
  EXPECT_NE(ar.reference.en.find("no P2P, through host memory"), std::string::npos) << ar.reference.en;
  // With P2P over PCIe between every pair, PCIe bounds it, NVLink bridges or not.
  Report pcie = testing::BridgedA100Report();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) Measure(pcie, "gpu.p2p", "p2p." + std::to_string(i) + "-" + std::to_string(j) + ".access", 1);
  const auto pcie_rows = Rows(pcie);
  const auto& bound = Row(pcie_rows, "allreduce");
  ASSERT_TRUE(bound.band.has_value());
  EXPECT_DOUBLE_EQ(bound.band->high, 26);  // PCIe 4.0 x16 in practice
}

// Issue 38: a card on a slow riser (PCIe 3.0 x4 under load, rated 4.0 x16) makes every path through
// it slow. The ring's reference stays what the cards are rated for, not the measured host copies
// that fell with it; the measured link explains the low figure in the row's note.
TEST(RatedReferences, ASlowRiserDoesNotLowerTheRingsReference) {
  Report r = testing::BridgedA100Report();
  Measure(r, "gpu.host_device_copy", "gpu1.h2d_pinned_gbps", 3.0, "GB/s");
  Measure(r, "gpu.host_device_copy", "gpu1.d2h_pinned_gbps", 3.1, "GB/s");
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 2.9, "GB/s");
  testing::AddCheck(r, "gpu.host_device_copy", Outcome::Pass).data["gpus"] = nlohmann::json::array(
      {{{"index", 1}, {"h2d_pinned", {{"nvml", {{"samples", 5}, {"pcie_gen_under_load", 3}, {"pcie_width_under_load", 4}}}}}}});
  const auto rows = Rows(r);
  const auto& ar = Row(rows, "allreduce");
  ASSERT_TRUE(ar.band.has_value());
  EXPECT_DOUBLE_EQ(ar.band->low, 10);  // rated, as without the riser
  ASSERT_TRUE(ar.worst.has_value());
  EXPECT_EQ(ar.worst->level, Level::OffLow);
  EXPECT_EQ(ar.FlagCell().en.rfind("yes", 0), 0u) << ar.FlagCell().en;
  EXPECT_NE(ar.note.en.find("GPU 1's link: PCIe 3.0 x4 under load, the card is rated 4.0 x16"), std::string::npos) << ar.note.en;
  // The GPU→GPU copies keep their rated bands too.
  for (const Reading& reading : Row(rows, "gpu_to_gpu").readings)
    if (reading.where == "GPU 1→2") EXPECT_DOUBLE_EQ(reading.band->low, 10);
}

// Under --only the rows whose checks did not run say nothing about this run: left out.
TEST(RatedReferences, UnderOnlyTheRowsOfChecksThatDidNotRunAreLeftOut) {
  Report r = testing::CourseMachineReport();
  r.meta.only = {"gpu.matmul"};
  r.checks.erase(std::remove_if(r.checks.begin(), r.checks.end(),
                                [](const CheckResult& c) { return c.id != "gpu.inventory" && c.id != "gpu.matmul"; }),
                 r.checks.end());
  std::vector<std::string> ids;
  for (const auto& row : Rows(r)) ids.push_back(row.id);
  EXPECT_EQ(fmt::format("{}", fmt::join(ids, ",")), "matmul_bf16,matmul_fp16");
}

TEST(Flags, TheWorstCardDecidesAndIsNamed) {
  Report r = testing::CourseMachineReport();
  Measure(r, "gpu.matmul", "gpu2.matmul_bf16_tflops", 30.0, "TFLOPS");
  const auto rows = Rows(r);
  const auto& bf16 = Row(rows, "matmul_bf16");
  ASSERT_TRUE(bf16.flagged());
  EXPECT_EQ(bf16.worst_where, "GPU 2");
  EXPECT_EQ(bf16.FlagCell().ru, "да: ниже в 2.3 раза (GPU 2)");
  EXPECT_EQ(bf16.RatioCell().ru, "0.44");
}

TEST(Flags, AboveTwiceIsFlaggedToo) {
  Report r = testing::CourseMachineReport();
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 25, "GB/s");
  const auto rows = Rows(r);
  const auto& ar = Row(rows, "allreduce");
  ASSERT_TRUE(ar.flagged());
  EXPECT_EQ(ar.FlagCell().ru, "да: выше в 2.5 раза");
}

TEST(Flags, WrongSumFlagsTheAllreduceRowWithoutAFigure) {
  Report r = testing::CourseMachineReport();
  testing::RemoveMeasurement(r, "nccl.allreduce_busbw_gbps");
  AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["wrong_sum"] = true;
  const auto rows = Rows(r);
  const auto& ar = Row(rows, "allreduce");
  EXPECT_TRUE(ar.flagged());
  EXPECT_EQ(ar.FlagCell().ru, "да: неверная сумма");
  EXPECT_EQ(ar.measured.ru, "неверная сумма");
}

TEST(Flags, HangThatTheRetryWorkedAroundStillFlagsTheRow) {
  Report r = testing::CourseMachineReport();
  CheckResult& ar = AddCheck(r, "interconnect.allreduce", Outcome::Warn);
  ar.data["hung"] = true;
  ar.data["p2p_disable_retry"] = {{"hung", false}, {"wrong_sum", false}};
  const auto rows = Rows(r);
  const auto& row = Row(rows, "allreduce");
  EXPECT_EQ(row.measured.ru, "11.2");
  EXPECT_EQ(row.FlagCell().ru, "да: завис, работает с NCCL_P2P_DISABLE=1");
}

TEST(Flags, AFailedAllreduceIsNotAWrongSumUnlessTheDataSaysSo) {
  // The GPU check writes nccl.allreduce_ok = 0 whenever no attempt worked, hung ones too.
  Report r = testing::CourseMachineReport();
  testing::RemoveMeasurement(r, "nccl.allreduce_busbw_gbps");
  Measure(r, "interconnect.allreduce", "nccl.allreduce_ok", 0);
  AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["crashed"] = true;
  const auto rows = Rows(r);
  EXPECT_EQ(Row(rows, "allreduce").FlagCell().ru, "да: процесс упал");
  AddCheck(r, "interconnect.allreduce", Outcome::Fail).data["p2p_disable_retry"] = {{"wrong_sum", true}};
  const auto again = Rows(r);
  EXPECT_EQ(Row(again, "allreduce").FlagCell().ru, "да: неверная сумма");
}

TEST(UnknownGpu, GetsARowWithDerivedFiguresMarkedAsEstimates) {
  Report r = testing::CourseMachineReport();
  auto& gpus = testing::Inventory(r)["gpus"];
  for (auto& g : gpus) {
    g["name"] = "NVIDIA GeForce RTX 4070 Ti";
    g["sm_count"] = 60;
    g["max_sm_clock_mhz"] = 2610;
    g["max_memory_clock_mhz"] = 10501;
    g["memory_bus_width_bits"] = 192;
  }
  const auto rows = Rows(r);
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_TRUE(bf16.derived);
  EXPECT_EQ(bf16.gpu_model, "derived");
  ASSERT_TRUE(bf16.band.has_value());
  // 1024 FLOP/clk/SM × 60 SM × 2.61 GHz × 0.5 (GeForce) = 80.2 TFLOPS; 70–85 % of it.
  EXPECT_NEAR(bf16.band->low, 80.18 * 0.70, 0.1);
  EXPECT_NE(bf16.reference.ru.find("оценка"), std::string::npos);
  EXPECT_NE(bf16.note.en.find("derived from the driver's figures"), std::string::npos);
  EXPECT_NE(bf16.note.ru.find("оценка по данным драйвера"), std::string::npos) << bf16.note.ru;
  EXPECT_NEAR(Row(rows, "memory_copy").band->high, 504 * 0.9, 0.5);
}

TEST(UnknownGpu, WithoutClocksStillGetsARowThatSaysSo) {
  Report r = testing::CourseMachineReport();
  for (auto& g : testing::Inventory(r)["gpus"]) g["name"] = "NVIDIA Mystery GPU";
  const auto rows = Rows(r);
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_TRUE(bf16.derived);
  EXPECT_FALSE(bf16.band.has_value());
  EXPECT_EQ(bf16.readings.size(), 4u);
  EXPECT_NE(bf16.reference.ru.find("нет в справочнике"), std::string::npos);
}

// Issue 42: a catalogued card whose sources give no tensor figure (the A10G: NVIDIA publishes no
// datasheet, third-party tables disagree) gets no band and no estimate passed off as one: the row
// says the datasheet has no such figure, while its memory row keeps the catalog's bandwidth.
TEST(CatalogGaps, AFigureNoSourceGivesIsSaidToBeMissing) {
  Report r = testing::CourseMachineReport();
  for (auto& g : testing::Inventory(r)["gpus"]) {
    g["name"] = "NVIDIA A10G";
    g["memory_total_gib"] = 22.49;
  }
  const auto rows = Rows(r);
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_EQ(bf16.gpu_model, "a10g");
  EXPECT_FALSE(bf16.derived);
  EXPECT_FALSE(bf16.band.has_value());
  EXPECT_EQ(bf16.reference.en, "no such figure in this card's datasheet");
  ASSERT_TRUE(Row(rows, "memory_copy").band.has_value());
  EXPECT_NEAR(Row(rows, "memory_copy").band->low, 600 * 0.8, 0.01);
}

TEST(MixedMachine, EachModelGetsItsOwnRow) {
  Report r = testing::CourseMachineReport();
  auto& gpus = testing::Inventory(r)["gpus"];
  gpus[3]["name"] = "NVIDIA GeForce RTX 4090";
  gpus[3]["memory_total_gib"] = 23.99;
  const auto rows = Rows(r);
  EXPECT_EQ(Row(rows, "matmul_bf16", "rtx-4080-32gb").readings.size(), 3u);
  const auto& r4090 = Row(rows, "matmul_bf16", "rtx-4090");
  EXPECT_EQ(r4090.readings.size(), 1u);
  // 74.9 TFLOPS on a 4090 (band 116–140) is notably low but not 2×.
  EXPECT_EQ(r4090.worst->level, Level::Notable);
}

TEST(CpuOnly, TheCourseRowsStayWithTheReasonNothingWasMeasured) {
  const auto rows = Rows(testing::CpuOnlyReport());
  const auto& bf16 = Row(rows, "matmul_bf16");
  EXPECT_EQ(bf16.reference.ru, "паспорт 97.5; реально 68–83 (70–85% паспорта)");
  EXPECT_EQ(bf16.measured.ru, "SKIP: нет GPU");
  // Each row names its check's own reason (issue 56), here the driver's «нет GPU».
  EXPECT_EQ(Row(rows, "allreduce").measured.ru, "SKIP: нет GPU");
  const auto& llama = Row(rows, "llama_train");
  EXPECT_EQ(llama.measured.ru, "на CPU шла крошечная конфигурация, её скорость не сравнима: нет GPU");
  EXPECT_FALSE(llama.worst.has_value());
  for (const auto& row : rows) EXPECT_FALSE(row.flagged()) << row.id;
}

TEST(Partial, InterruptedRunSaysWhyRowsAreEmpty) {
  Report r = testing::CourseMachineReport();
  r.meta.interrupted = true;
  r.checks.erase(std::remove_if(r.checks.begin(), r.checks.end(),
                                [](const CheckResult& c) { return c.id == "interconnect.allreduce"; }),
                 r.checks.end());
  const auto rows = Rows(r);
  EXPECT_EQ(Row(rows, "allreduce").measured.ru, "не запускался: проверка прервана");
}

TEST(Partial, AnEmptyReportStillGivesTheCourseRows) {
  const auto rows = Rows(Report{});
  EXPECT_FALSE(rows.empty());
  EXPECT_EQ(Row(rows, "matmul_bf16").measured.ru, "не запускался");
}

TEST(Partial, APassingCheckWithoutTheFigureSaysSo) {
  Report r = testing::CourseMachineReport();
  testing::RemoveMeasurement(r, "smoke.llama.train_tflops");
  const auto rows = Rows(r);
  EXPECT_EQ(Row(rows, "llama_train").measured.ru, "PASS, но без этого замера");
}

}  // namespace
}  // namespace labcheck::expect
