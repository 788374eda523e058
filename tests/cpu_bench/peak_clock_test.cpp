// Which clock the theoretical FP32 peak uses, on fake /proc and /sys trees: cpufreq's highest
// maximum, else the model's rated boost, else the brand string's nominal clock, else the snapshot
// in /proc/cpuinfo, said in the label; and a share above 100 % always says the theory was a
// lower bound.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cpu_bench/flops_peak.h"
#include "cpu_bench/matmul_check.h"
#include "cpu_bench/rated_clock.h"
#include "env/cpu_info.h"
#include "sample_files.h"

namespace labcheck::cpu_bench {
namespace {

namespace fs = std::filesystem;

// A machine root with /proc/cpuinfo from a sample and, optionally, cpufreq maxima per CPU (kHz).
class FakeRoot {
 public:
  FakeRoot(const std::string& cpuinfo_sample, std::vector<long> max_khz) {
    root_ = *MakePrivateTempDir("lab_check_fake_root_");
    fs::create_directories(root_ + "/proc");
    (void)WriteFileAtomically(root_ + "/proc/cpuinfo", testing::SourceFile("tests/env/data/" + cpuinfo_sample));
    for (size_t cpu = 0; cpu < max_khz.size(); ++cpu) {
      const std::string dir = root_ + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq";
      fs::create_directories(dir);
      (void)WriteFileAtomically(dir + "/cpuinfo_max_freq", std::to_string(max_khz[cpu]) + "\n");
    }
  }
  ~FakeRoot() { RemoveTree(root_); }
  const std::string& path() const { return root_; }

 private:
  std::string root_;
};

TEST(PeakClock, HighestCpufreqMaximumOfAnyCore) {
  // cpu0 is not the fastest core (preferred cores, hybrid parts): the highest maximum counts.
  FakeRoot root("cpuinfo_xeon_2socket_ht_trimmed.txt", {3900000, 3900000, 4100000, 3900000});
  auto cpu = env::ReadCpuInfo(root.path());
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  ASSERT_TRUE(cpu->max_mhz);
  EXPECT_DOUBLE_EQ(*cpu->max_mhz, 4100);
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->clock, ClockSource::CpufreqMax);
  EXPECT_FALSE(peak->lower_bound());
  EXPECT_NE(peak->label.en.find("4.10 GHz (maximum, cpufreq)"), std::string::npos) << peak->label.en;
}

TEST(PeakClock, RatedBoostWhereTheVmHidesCpufreq) {
  // The Xeon Gold 6248R's /proc/cpuinfo shows 1.0 GHz (idle) and "@ 3.00GHz" (base); it boosts to 4.0.
  FakeRoot root("cpuinfo_xeon_2socket_ht_trimmed.txt", {});
  auto cpu = env::ReadCpuInfo(root.path());
  ASSERT_TRUE(cpu.ok());
  EXPECT_FALSE(cpu->max_mhz);
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->clock, ClockSource::RatedBoost);
  EXPECT_DOUBLE_EQ(peak->mhz, 4000);
  EXPECT_EQ(peak->clock_source.en, "Intel ARK product specifications, 'Max Turbo Frequency': https://ark.intel.com/");
  EXPECT_EQ(peak->clock_source.ru, "характеристики продуктов в Intel ARK, поле 'Max Turbo Frequency': https://ark.intel.com/");
  EXPECT_NE(peak->label.en.find("4.00 GHz (rated boost)"), std::string::npos) << peak->label.en;
  EXPECT_NE(peak->label.ru.find("4.00 ГГц (паспортная максимальная (турбо))"), std::string::npos) << peak->label.ru;
}

TEST(PeakClock, UnknownModelInAVmIsALowerBound) {
  FakeRoot root("cpuinfo_epyc_zen5_vm_2vcpu.txt", {});  // "AMD EPYC": no model number to look up
  auto cpu = env::ReadCpuInfo(root.path());
  ASSERT_TRUE(cpu.ok());
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->clock, ClockSource::Current);
  EXPECT_TRUE(peak->lower_bound());
  EXPECT_NE(peak->label.en.find("a lower bound"), std::string::npos);
  EXPECT_NE(peak->LowerBoundWhy().en.find("2.10 GHz that /proc/cpuinfo shows"), std::string::npos);
}

TEST(PeakClock, BrandStringNominalClockBeatsAnIdleSnapshot) {
  EXPECT_DOUBLE_EQ(*BrandStringMhz("Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz"), 2300);
  EXPECT_FALSE(BrandStringMhz("AMD EPYC 7763 64-Core Processor"));
  auto cpu = env::ParseCpuInfo(testing::SourceFile("tests/env/data/cpuinfo_xeon_2socket_ht_trimmed.txt"));
  ASSERT_TRUE(cpu.ok());
  cpu->model = "Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz";  // not in the table
  cpu->current_mhz = 1000;                                   // an idle core
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->clock, ClockSource::Nominal);
  EXPECT_DOUBLE_EQ(peak->mhz, 2300);
  EXPECT_TRUE(peak->lower_bound());
}

TEST(RatedBoostClock, WholeWordsAndTheLongestMatch) {
  EXPECT_DOUBLE_EQ(RatedBoostClock("AMD EPYC 7763 64-Core Processor")->mhz, 3500);
  EXPECT_DOUBLE_EQ(RatedBoostClock("AMD Ryzen 9 7950X3D 16-Core Processor")->mhz, 5700);
  EXPECT_EQ(RatedBoostClock("AMD Ryzen 9 7950X3D 16-Core Processor")->model, "Ryzen 9 7950X3D");
  EXPECT_FALSE(RatedBoostClock("AMD EPYC 77630"));
  EXPECT_FALSE(RatedBoostClock("AMD EPYC"));
  const char* table = R"({"sources": {"s": "Vendor page: https://example.org", "t": "Other page: https://example.com"},
                          "sources_ru": {"s": "страница вендора: https://example.org"},
                          "cpus": [{"match": "X 1", "boost_mhz": 1000, "source": "s"}, {"match": "Y 2", "boost_mhz": 900, "source": "t"}]})";
  auto rated = RatedBoostClockIn(table, "Maker X 1 CPU");
  ASSERT_TRUE(rated);
  EXPECT_EQ(rated->source.en, "Vendor page: https://example.org");
  EXPECT_EQ(rated->source.ru, "страница вендора: https://example.org");
  // A source without a Russian form is shown in English in both.
  auto other = RatedBoostClockIn(table, "Maker Y 2 CPU");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->source.ru, "Other page: https://example.com");
}

// Every vendor page has its Russian form, and no Russian form names a page "sources" lacks.
TEST(RatedBoostClock, EverySourceHasItsRussianFormAndNoOrphan) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/data/cpu_clocks.json");
  const nlohmann::json table = nlohmann::json::parse(in);
  for (const auto& [key, text] : table.at("sources_ru").items()) EXPECT_TRUE(table.at("sources").contains(key)) << key;
  for (const auto& [key, text] : table.at("sources").items()) EXPECT_TRUE(table.at("sources_ru").contains(key)) << key;
}

// One SGEMM call of N = 1000 (2 GFLOP) at `gflops` with OpenBLAS's `corename` kernels on the
// Zen 5 VM of tests/env/data (AVX-512; its peak is 268 GFLOPS at the 2.1 GHz the VM shows).
MatmulInputs Zen5Sgemm(const std::string& corename, double gflops) {
  MatmulInputs in;
  in.run.n = 1000;
  in.run.threads = 2;
  in.run.corename = corename;
  in.run.config = "OpenBLAS";
  in.run.seconds = {2.0 / gflops};
  auto cpu = env::ParseCpuInfo(testing::SourceFile("tests/env/data/cpuinfo_epyc_zen5_vm_2vcpu.txt"));
  if (cpu.ok()) in.peak = *TheoreticalFp32Peak(*cpu);
  return in;
}

// The rated clock's note names the vendor page in the report's language; the column quoted as published.
TEST(AssessMatmulRatedClock, TheNoteNamesTheVendorPageInTheReportsLanguage) {
  MatmulInputs in = Zen5Sgemm("SkylakeX", 200);
  ASSERT_TRUE(in.peak.has_value());
  in.peak->clock = ClockSource::RatedBoost;
  in.peak->clock_source = RatedBoostClock("AMD EPYC 7763 64-Core Processor")->source;
  const CheckResult result = AssessMatmul(in);
  ASSERT_FALSE(result.tables.empty());
  bool ru = false, en = false;
  for (const auto& note : result.tables[0].notes) {
    ru |= note.ru.find("(cpufreq не виден): характеристики процессоров AMD, столбец 'Max. Boost Clock': https://www.amd.com/") !=
          std::string::npos;
    en |= note.en.find("(cpufreq is not visible): AMD processor specifications, 'Max. Boost Clock': https://www.amd.com/") !=
          std::string::npos;
  }
  EXPECT_TRUE(ru);
  EXPECT_TRUE(en);
}

TEST(AssessMatmulAboveTheory, NeverAShareAbove100WithoutSayingTheTheoryIsALowerBound) {
  MatmulInputs in = Zen5Sgemm("SkylakeX", 330);
  ASSERT_TRUE(in.peak.has_value());
  CheckResult result = AssessMatmul(in);
  EXPECT_NE(result.summary.en.find("123% of a theory that is a lower bound here"), std::string::npos) << result.summary.en;
  EXPECT_NE(result.summary.ru.find("123% теории — она здесь нижняя граница"), std::string::npos) << result.summary.ru;
  EXPECT_NE(result.Find("cpu.sgemm_gflops")->reference_label.en.find("the theory is a lower bound"), std::string::npos);
  ASSERT_FALSE(result.tables.empty());
  EXPECT_NE(result.tables[0].rows[0].back().en.find("123% (the theory is a lower bound)"), std::string::npos);
  bool explained = false;
  for (const auto& note : result.tables[0].notes) explained |= note.en.find("Measured above the theory (123%)") == 0;
  EXPECT_TRUE(explained);
  EXPECT_TRUE(result.data["theoretical"]["lower_bound"].get<bool>());
  EXPECT_EQ(result.data["theoretical"]["clock_source"], "current");

  // Below the theory nothing changes: the plain share.
  in.run.seconds = {2.0 / 200};
  result = AssessMatmul(in);
  EXPECT_EQ(result.summary.en.find("lower bound"), std::string::npos);
}

// OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU: the row names the variable, and the kernels' cap
// says what it is a bound of (a share of a lower-bound theory), never a bare "can reach" below
// the figure measured.
TEST(AssessMatmulKernelCap, ANarrowerCoretypeFromTheEnvironmentIsNamed) {
  MatmulInputs in = Zen5Sgemm("Haswell", 175);
  ASSERT_TRUE(in.peak.has_value());
  ASSERT_EQ(in.peak->isa.width_bits, 512);
  CheckResult result = AssessMatmul(in);
  EXPECT_EQ(result.summary.en.find("OPENBLAS_CORETYPE"), std::string::npos) << result.summary.en;
  std::string notes;
  for (const auto& note : result.tables[0].notes) notes += note.en + "\n";
  EXPECT_NE(notes.find("at most 256/512 of the theory"), std::string::npos) << notes;
  EXPECT_NE(notes.find("and so is this figure"), std::string::npos) << notes;  // 175 above the cap of a lower bound

  in.openblas_coretype_env = "Haswell";
  result = AssessMatmul(in);
  EXPECT_NE(result.summary.en.find("OPENBLAS_CORETYPE=Haswell forces 256-bit kernels on a 512-bit CPU"), std::string::npos)
      << result.summary.en;
  EXPECT_NE(result.summary.ru.find("OPENBLAS_CORETYPE=Haswell"), std::string::npos) << result.summary.ru;
  notes.clear();
  for (const auto& note : result.tables[0].notes) notes += note.en + "\n";
  EXPECT_NE(notes.find("unset OPENBLAS_CORETYPE"), std::string::npos) << notes;
}

}  // namespace
}  // namespace labcheck::cpu_bench
