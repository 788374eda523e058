// The binary starts on every glibc from the floor up (docs/install.md, "Platforms": RHEL/Rocky 9 has
// 2.34, Ubuntu 22.04 2.35): scripts/glibc-floor.sh reads its version needs and names any symbol
// above the floor. The same script checks the arm64 build in scripts/check-platforms.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runner/child_process.h"

namespace labcheck {
namespace {

ChildOutcome GlibcFloor(const std::string& binary, const std::string& floor) {
  ChildSpec spec;
  spec.argv = {"bash", (std::filesystem::path(LAB_CHECK_SOURCE_DIR) / "scripts/glibc-floor.sh").string(), binary, floor};
  spec.timeout_s = 30;
  return RunChild(spec, CancelToken::Never());
}

TEST(GlibcNeeds, NothingAboveTheFloor) {
  const ChildOutcome outcome = GlibcFloor(LAB_CHECK_BINARY, LAB_CHECK_GLIBC_FLOOR);
  EXPECT_TRUE(outcome.exited_ok()) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("at most"), std::string::npos) << outcome.out;
}

TEST(GlibcNeeds, AFloorBelowTheBinarysNeedsNamesTheSymbol) {
  // The reader itself: glibc 2.34 moved __libc_start_main to a new version, which every binary
  // linked against glibc 2.34+ needs, so below it the script must fail and name that symbol.
  const ChildOutcome outcome = GlibcFloor(LAB_CHECK_BINARY, "2.33");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("__libc_start_main@GLIBC_2.34"), std::string::npos) << outcome.out;
}

TEST(GlibcNeeds, AMissingBinaryIsBadInput) {
  const ChildOutcome outcome = GlibcFloor("/nonexistent/lab_check", LAB_CHECK_GLIBC_FLOOR);
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("/nonexistent/lab_check"), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace labcheck
