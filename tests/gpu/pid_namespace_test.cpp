// Which PID namespace NVML's pids can be named from: the host's by its fixed inode, a container's
// by any other, read from a fake /proc whose self/ns/pid is a symlink as the kernel shows it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "gpu/health/pid_namespace.h"

namespace labcheck::gpu::health {
namespace {

namespace fs = std::filesystem;

std::string ProcWithPidLink(const std::string& name, const std::string& target) {
  const fs::path root = fs::path(::testing::TempDir()) / ("pidns-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "self" / "ns");
  fs::create_symlink(target, root / "self" / "ns" / "pid");  // dangling, as readlink needs
  return root.string();
}

TEST(PidNamespace, TheHostsNamespaceIsToldByItsFixedInode) {
  const PidNamespace host = ReadPidNamespace(ProcWithPidLink("host", "pid:[4026531836]"));
  EXPECT_EQ(host.link, "pid:[4026531836]");
  EXPECT_TRUE(host.host);
  const PidNamespace container = ReadPidNamespace(ProcWithPidLink("container", "pid:[4026532513]"));
  EXPECT_EQ(container.link, "pid:[4026532513]");
  EXPECT_FALSE(container.host);
  EXPECT_EQ(PidNamespaceJson(container), nlohmann::json({{"link", "pid:[4026532513]"}, {"host", false}}));
}

TEST(PidNamespace, ATestCanNameAnotherNamespaceTheHosts) {
  EXPECT_TRUE(ReadPidNamespace(ProcWithPidLink("seam", "pid:[4026532513]"), std::string("pid:[4026532513]")).host);
}

TEST(PidNamespace, WithoutNamespaceFilesThereIsOnlyTheHost) {
  const PidNamespace old_kernel = ReadPidNamespace(ProcWithPidLink("none", "pid:[1]") + "/missing");
  EXPECT_TRUE(old_kernel.link.empty());
  EXPECT_TRUE(old_kernel.host);
  EXPECT_EQ(PidNamespaceJson(old_kernel)["link"], nullptr);
}

TEST(PidNamespace, ThisProcessReadsItsOwnLink) {
  const PidNamespace own = ReadPidNamespace();
  ASSERT_FALSE(own.link.empty());
  EXPECT_EQ(own.link.rfind("pid:[", 0), 0u) << own.link;
  EXPECT_TRUE(ReadPidNamespace("/proc", own.link).host);
}

}  // namespace
}  // namespace labcheck::gpu::health
