// What an administrator copies to the nodes (cmake/Packaging.cmake): `cpack` makes the .deb and the
// tarball with their sha256 from the built binary; the .deb is unpacked into a temporary root (as
// `dpkg -i` would place it, without touching this machine's package database) and the binary run
// from there: --version, and node-check on the simulated course machine (tests/sim, which proves
// the package's binary works, never a figure).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "core/json_instances.h"
#include "runner/child_process.h"

namespace labcheck {
namespace {
namespace fs = std::filesystem;

ChildOutcome RunCommand(std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env = {},
                 const fs::path& cwd = {}) {
  ChildSpec spec;
  spec.argv = std::move(argv);
  spec.set_env = std::move(env);
  spec.cwd = cwd.string();
  spec.timeout_s = 180;
  return RunChild(spec, CancelToken::Never());
}

std::string Bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Where one cpack run put its packages (`cpack -B`), and their names as cmake/Packaging.cmake gives them.
struct Packed {
  fs::path folder;
  std::string Tarball() const { return std::string("lab_check-") + LAB_CHECK_VERSION + "-linux-" + LAB_CHECK_PROCESSOR + ".tar.gz"; }
  fs::path Deb() const { return folder / (std::string("lab-check_") + LAB_CHECK_VERSION + "_" + LAB_CHECK_DEB_ARCH + ".deb"); }
};

void ExpectDebFields(const Packed& packed) {
  const ChildOutcome fields = RunCommand({"dpkg-deb", "--field", packed.Deb().string(), "Package", "Architecture", "Depends"});
  ASSERT_TRUE(fields.exited_ok()) << fields.err;
  EXPECT_NE(fields.out.find("Package: lab-check"), std::string::npos) << fields.out;
  EXPECT_NE(fields.out.find(std::string("Architecture: ") + LAB_CHECK_DEB_ARCH), std::string::npos) << fields.out;
  EXPECT_NE(fields.out.find(std::string("Depends: libc6 (>= ") + LAB_CHECK_GLIBC_FLOOR + ")"), std::string::npos)
      << fields.out;
}

// The tarball passes its own sha256 and holds the same binary as the .deb.
void ExpectTarballMatches(const Packed& packed, const fs::path& installed) {
  ASSERT_TRUE(fs::exists(packed.folder / (packed.Tarball() + ".sha256")));
  const ChildOutcome checked = RunCommand({"sha256sum", "-c", packed.Tarball() + ".sha256"}, {}, packed.folder);
  EXPECT_TRUE(checked.exited_ok()) << checked.out << checked.err;
  const ChildOutcome unpacked = RunCommand({"tar", "-xzf", packed.Tarball()}, {}, packed.folder);
  ASSERT_TRUE(unpacked.exited_ok()) << unpacked.err;
  const fs::path from_tarball = packed.folder / fs::path(packed.Tarball()).stem().stem() / "bin/lab_check";
  ASSERT_TRUE(fs::exists(from_tarball)) << from_tarball;
  EXPECT_TRUE(Bytes(from_tarball) == Bytes(installed)) << "the tarball's and the .deb's lab_check differ";
}

void ExpectVersionAndCommit(const fs::path& installed) {
  const ChildOutcome version = RunCommand({installed.string(), "--version"});
  ASSERT_TRUE(version.exited_ok()) << version.Describe() << version.err;
  const std::regex line(std::string(R"(^lab_check )") + LAB_CHECK_VERSION + R"( \(commit ([0-9a-f]{12}(-dirty)?|unknown)\))");
  EXPECT_TRUE(std::regex_search(version.out, line)) << version.out;
  // Built from a git checkout, it names that checkout's commit (the build wrote it there).
  const ChildOutcome head = RunCommand({"git", "-C", LAB_CHECK_SOURCE_DIR, "rev-parse", "--short=12", "HEAD"});
  if (head.exited_ok()) {
    EXPECT_NE(version.out.find("(commit " + head.out.substr(0, 12)), std::string::npos) << version.out;
  }
}

void ExpectNodeCheckOkOnTheSimulatedCourseMachine(const fs::path& installed) {
  const fs::path build = fs::path(LAB_CHECK_BINARY).parent_path();
  // Paced (about 2 s): on the unpaced profile a card is idle the moment its copies end, and under
  // ctest's load node-check's child sometimes read the PCIe link after it fell back to Gen1 and
  // failed the node on "PCIe under load" (seen once in five parallel runs).
  const fs::path profile = fs::path(LAB_CHECK_SOURCE_DIR) / "tests/sim/machines/course-4x4080.json";
  const ChildOutcome check = RunCommand({installed.string(), "node-check", "--lang", "en", "--json"},
                                        {{"LD_LIBRARY_PATH", (build / "sim-nvidia").string()}, {"LABCHECK_SIM_MACHINE", profile.string()}});
  ASSERT_EQ(check.exit_code, 0) << check.Describe() << "\n" << check.out << check.err;
  const nlohmann::json report = nlohmann::json::parse(check.out.substr(0, check.out.find('\n')), nullptr, false);
  ASSERT_TRUE(report.is_object()) << check.out;
  EXPECT_EQ(report["verdict"], "OK");
  EXPECT_EQ(report["gpus"].size(), 4u);
}

// One test: packing is most of its time, and each test is a process of its own under ctest.
TEST(PackageInstall, PackedInstalledIntoATemporaryRootAndRun) {
  char pattern[] = "/tmp/labcheck_package_XXXXXX";
  const Packed packed{mkdtemp(pattern)};
  const fs::path build = fs::path(LAB_CHECK_BINARY).parent_path();
  const ChildOutcome cpack = RunCommand({LAB_CHECK_CPACK, "--config", (build / "CPackConfig.cmake").string(), "-B", packed.folder.string()});
  ASSERT_TRUE(cpack.exited_ok()) << cpack.Describe() << "\n" << cpack.out << cpack.err;
  ASSERT_TRUE(fs::exists(packed.Deb())) << packed.Deb() << "\n" << cpack.out;
  ExpectDebFields(packed);
  // Unpacked as `dpkg -i` would place it, without touching this machine's package database.
  const fs::path root = packed.folder / "root";
  const ChildOutcome unpacked = RunCommand({"dpkg-deb", "-x", packed.Deb().string(), root.string()});
  ASSERT_TRUE(unpacked.exited_ok()) << unpacked.Describe() << unpacked.err;
  const fs::path installed = root / "usr/bin/lab_check";
  ExpectTarballMatches(packed, installed);
  ExpectVersionAndCommit(installed);
  ExpectNodeCheckOkOnTheSimulatedCourseMachine(installed);
  fs::remove_all(packed.folder);
}

}  // namespace
}  // namespace labcheck
