#include "env/system_check.h"

#include <gtest/gtest.h>

#include "core/units.h"

namespace labcheck::env {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

DiskSpace Space(uint64_t free_bytes, uint64_t device, bool exists = true) {
  DiskSpace space;
  space.path = space.measured_path = "/x";
  space.exists = exists;
  space.free_bytes = free_bytes;
  space.total_bytes = 1000 * kGiB;
  space.device = device;
  return space;
}

// A healthy workstation: nothing to warn about.
SystemFacts Healthy() {
  SystemFacts facts;
  facts.os = {"Ubuntu 24.04.1 LTS", "6.8.0-45-generic", "x86_64", "2.39"};
  CpuInfo cpu;
  cpu.model = "AMD EPYC 7H43";
  cpu.sockets = 1;
  cpu.cores = 48;
  cpu.threads = 96;
  facts.cpu = cpu;
  facts.memory = MemInfo{128 * kGiB, 120 * kGiB};
  facts.hf_cache = {"/home/u/.cache/huggingface/hub", "default"};
  facts.disks = {{DiskRole::CurrentDirectory, "/home/u/ChinaAI", Space(500 * kGiB, 1), ""},
                 {DiskRole::HfCache, "/home/u/.cache/huggingface/hub", Space(500 * kGiB, 1), ""}};
  facts.shm = Space(64 * kGiB, 2);
  return facts;
}

TEST(AssessSystem, HealthyMachinePassesWithSchemaData) {
  CheckResult result = AssessSystem(Healthy());
  EXPECT_EQ(result.outcome, Outcome::Pass);
  EXPECT_EQ(result.id, "env.system");
  EXPECT_EQ(result.section, "environment");
  EXPECT_EQ(result.data["os"], "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(result.data["cpu"]["cores"], 48);
  EXPECT_EQ(result.data["cpu"]["threads"], 96);
  EXPECT_TRUE(result.data["cpu"]["max_mhz"].is_null());
  EXPECT_DOUBLE_EQ(result.data["memory"]["total_gib"].get<double>(), 128.0);
  EXPECT_DOUBLE_EQ(result.data["shm_gib"].get<double>(), 1000.0);
  ASSERT_EQ(result.data["disks"].size(), 2u);
  EXPECT_EQ(result.data["disks"][1]["role"], "hf_cache");
  EXPECT_DOUBLE_EQ(result.data["disks"][1]["free_gib"].get<double>(), 500.0);
  EXPECT_NE(result.summary.ru.find("48 ядер / 96 потоков"), std::string::npos) << result.summary.ru;
  EXPECT_EQ(result.tables.size(), 2u);
}

TEST(AssessSystem, SmallShmWarnsWithDockerHint) {
  SystemFacts facts = Healthy();
  facts.shm->total_bytes = 64ull << 20;  // Docker's default
  CheckResult result = AssessSystem(facts);
  EXPECT_EQ(result.outcome, Outcome::Warn);
  EXPECT_NE(result.reason.en.find("/dev/shm"), std::string::npos);
  EXPECT_NE(result.hint.en.find("--shm-size"), std::string::npos);
}

TEST(AssessSystem, MissingShmWarns) {
  SystemFacts facts = Healthy();
  facts.shm.reset();
  facts.shm_error = "/dev/shm does not exist";
  EXPECT_EQ(AssessSystem(facts).outcome, Outcome::Warn);
}

TEST(AssessSystem, ShmOfExactlyOneGiBIsEnough) {
  SystemFacts facts = Healthy();
  facts.shm->total_bytes = kMinShmBytes;
  EXPECT_EQ(AssessSystem(facts).outcome, Outcome::Pass);
}

TEST(AssessSystem, HfCacheUnderFiftyGigabytesWarns) {
  SystemFacts facts = Healthy();
  facts.disks[1].space->free_bytes = 49'000'000'000;
  CheckResult result = AssessSystem(facts);
  EXPECT_EQ(result.outcome, Outcome::Warn);
  EXPECT_NE(result.reason.ru.find("49.0 GB"), std::string::npos) << result.reason.ru;
  EXPECT_NE(result.hint.en.find("HF_HOME"), std::string::npos);
}

TEST(AssessSystem, SmallCurrentDirectoryDiskAloneDoesNotWarn) {
  SystemFacts facts = Healthy();
  facts.disks[0].space->free_bytes = 10 * kGiB;
  facts.disks[0].space->device = 7;
  EXPECT_EQ(AssessSystem(facts).outcome, Outcome::Pass);
}

TEST(AssessSystem, BothWarningsAreReported) {
  SystemFacts facts = Healthy();
  facts.disks[1].space->free_bytes = 1 * kGiB;
  facts.shm->total_bytes = 1 << 20;
  CheckResult result = AssessSystem(facts);
  EXPECT_EQ(result.outcome, Outcome::Warn);
  EXPECT_NE(result.reason.en.find("/dev/shm"), std::string::npos);
  EXPECT_NE(result.reason.en.find("Hugging Face"), std::string::npos);
}

TEST(AssessSystem, UnreadablePartsBecomeTableLinesNotFailures) {
  SystemFacts facts = Healthy();
  facts.cpu.reset();
  facts.cpu_error = "/proc/cpuinfo: Permission denied";
  facts.memory.reset();
  facts.memory_error = "no MemTotal";
  facts.disks[1].space.reset();
  facts.disks[1].error = "statvfs: Permission denied";
  CheckResult result = AssessSystem(facts);
  EXPECT_EQ(result.outcome, Outcome::Pass);
  EXPECT_EQ(result.data["cpu"]["error"], "/proc/cpuinfo: Permission denied");
  EXPECT_TRUE(result.data["memory"].is_null());
  EXPECT_EQ(result.data["disks"][1]["error"], "statvfs: Permission denied");
}

TEST(AssessSystem, NotesWhenTheCacheDoesNotExistYetAndSharesTheDisk) {
  SystemFacts facts = Healthy();
  facts.disks[1].space->exists = false;
  CheckResult result = AssessSystem(facts);
  const Table& disks = result.tables[1];
  bool said_missing = false, said_shared = false;
  for (const Text& note : disks.notes) {
    said_missing |= note.en.find("does not exist yet") != std::string::npos;
    said_shared |= note.en.find("share") != std::string::npos;
  }
  EXPECT_TRUE(said_missing);
  EXPECT_TRUE(said_shared);
  EXPECT_EQ(result.data["disks"][1]["exists"], false);
}

TEST(CollectSystemFacts, ReadsThisMachine) {
  SystemFacts facts = CollectSystemFacts();
  EXPECT_TRUE(facts.cpu.has_value()) << facts.cpu_error;
  EXPECT_TRUE(facts.memory.has_value()) << facts.memory_error;
  ASSERT_EQ(facts.disks.size(), 2u);
  EXPECT_TRUE(facts.disks[0].space.has_value()) << facts.disks[0].error;
  CheckResult result = AssessSystem(facts);
  EXPECT_NE(result.outcome, Outcome::Fail);
}

}  // namespace
}  // namespace labcheck::env
