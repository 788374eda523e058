// The state file --drain keeps per node, and the boot id it compares.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "fake_env.h"
#include "node_check/slurm/resume_state.h"

namespace labcheck::node_check {
namespace {

struct TempDir {
  std::string path = ::testing::TempDir() + "resume_state_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(ResumeState, WrittenReadBackAndRemoved) {
  TempDir dir;
  const std::string path = ResumeStatePath(dir.path + "/state", "gpu07");
  EXPECT_EQ(path, dir.path + "/state/gpu07.json");
  Result<std::optional<ResumeState>> none = ReadResumeState(path);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value());  // no file: no record
  ResumeState s;
  s.healthy_runs = 2;
  s.reboot_boot_id = "0b6d3c1e-9a1f-4d61-b1a5-6f0f2a3e4c5d";
  ASSERT_TRUE(WriteResumeState(path, s).ok());  // the folder is created
  Result<std::optional<ResumeState>> back = ReadResumeState(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back.value());
  EXPECT_EQ(back.value()->healthy_runs, 2);
  EXPECT_EQ(back.value()->reboot_boot_id, s.reboot_boot_id);
  EXPECT_FALSE(back.value()->updated_at.empty());
  ASSERT_TRUE(RemoveResumeState(path).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(RemoveResumeState(path).ok());  // already gone is fine
}

TEST(ResumeState, AFileThatIsNotOursIsAnErrorNamingIt) {
  TempDir dir;
  std::filesystem::create_directories(dir.path);
  const std::string path = ResumeStatePath(dir.path, "gpu07");
  std::ofstream(path) << "not json";
  Result<std::optional<ResumeState>> read = ReadResumeState(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(path), std::string::npos) << read.status().message();
}

TEST(ResumeState, AFolderThatCannotBeWrittenSaysWhere) {
  TempDir dir;
  std::filesystem::create_directories(dir.path);
  std::ofstream(dir.path + "/file") << "x";  // a file where the folder should be
  const Status s = WriteResumeState(ResumeStatePath(dir.path + "/file", "gpu07"), ResumeState{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.path + "/file"), std::string::npos) << s.message();
}

TEST(ResumeState, BootIdFromTheKernelOrTheTestsFile) {
  TempDir dir;
  std::filesystem::create_directories(dir.path);
  std::ofstream(dir.path + "/boot_id") << "abc-1\n";
  EXPECT_EQ(ReadBootId(testing::FakeEnv({{"LABCHECK_BOOT_ID_FILE", dir.path + "/boot_id"}})), "abc-1");
  EXPECT_EQ(ReadBootId(testing::FakeEnv({{"LABCHECK_BOOT_ID_FILE", dir.path + "/missing"}})), "");
  if (std::filesystem::exists("/proc/sys/kernel/random/boot_id")) {
    EXPECT_EQ(ReadBootId(testing::FakeEnv({})).size(), 36u);
  }
}

}  // namespace
}  // namespace labcheck::node_check
