// Issues 52 and 56: when the terminal report wraps, no figure is parted from its unit ("0.0" / "s",
// "(-10.00" / "GB)") or from its phrase ("и ещё" / "1", "and 11" / "more"). Only a tty wraps (a pipe
// keeps each line whole), so each run is in a real one (tmux_pane.h): a GPU-less --quick, serve,
// and the full check on the simulated course machine, in Russian and English.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "parted_figures.h"
#include "tmux_pane.h"

namespace labcheck {
namespace {

TEST(PartedFigures, FindsTheSplitsOfTheIssues) {
  EXPECT_EQ(screen_check::PartedFigures("[1–11/40] SKIP Python и ещё 10 0.0\n    s — no Python\n").size(), 1u);
  EXPECT_EQ(screen_check::PartedFigures("  2  18.46 GiB (19.82 GB)  (-10.00\n                            GB)\n").size(), 1u);
  EXPECT_EQ(screen_check::PartedFigures("SKIP Python: interpreter and\n    11 more\n").size(), 1u);
  EXPECT_EQ(screen_check::PartedFigures("SKIP Python: interpreter and 11\n    more\n").size(), 1u);
  // A table's next row, a heading's first line and a figure ending a sentence are not splits.
  EXPECT_TRUE(screen_check::PartedFigures("  1  36.92 GiB  no\n  2  18.46 GiB  yes\n").empty());
  EXPECT_TRUE(screen_check::PartedFigures("Fits at 48432.\n  vllm serve\n").empty());
  EXPECT_TRUE(screen_check::PartedFigures("  2  7.39 GiB (7.94 GB)  48432\n    Fits: no\n").empty());
}

struct TerminalRun {
  std::string name;  // for the test's name
  std::string args;
  int width = 80;
  bool simulated = false;  // the full check on the simulated course machine
};

class FiguresStayWithTheirUnits : public ::testing::TestWithParam<TerminalRun> {};

TEST_P(FiguresStayWithTheirUnits, InATerminal) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh --with-tests installs it)";
  const TerminalRun& run = GetParam();
  std::string env = "LD_LIBRARY_PATH=/nonexistent";  // no GPU, whatever the machine running the tests has
  if (run.simulated) {
    const std::string binary = LAB_CHECK_BINARY;
    const std::string sim = binary.substr(0, binary.rfind('/')) + "/sim-nvidia";
    if (access((sim + "/libcuda.so.1").c_str(), R_OK) != 0) GTEST_SKIP() << "no simulated driver in " << sim;
    const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/course-4x4080-unpaced.json";
    env = "-u CUDA_VISIBLE_DEVICES LD_LIBRARY_PATH='" + sim + "' LABCHECK_SIM_MACHINE='" + machine + "'";
  }
  TmuxPane pane;
  const std::string screen = pane.ScreenOf(run.args, run.width, env);
  ASSERT_NE(screen.find("LAB_CHECK_DONE"), std::string::npos);
  for (const std::string& split : screen_check::PartedFigures(screen)) ADD_FAILURE() << "at " << run.width << " columns:\n" << split;
}

std::string NameOf(const ::testing::TestParamInfo<TerminalRun>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Runs, FiguresStayWithTheirUnits,
    ::testing::Values(TerminalRun{"QuickRu80", "--quick --python /bin/false", 80}, TerminalRun{"QuickEn80", "--quick --python /bin/false --lang en", 80},
                      // Issue 56's "and 11" / "more" was at 120 columns.
                      TerminalRun{"QuickRu120", "--quick --python /bin/false", 120}, TerminalRun{"QuickEn120", "--quick --python /bin/false --lang en", 120},
                      TerminalRun{"ServeRu80", "serve llama-3.1-70b --quant int4", 80}, TerminalRun{"ServeEn80", "serve llama-3.1-70b --quant int4 --lang en", 80},
                      TerminalRun{"SimulatedRu80", "--python /bin/false", 80, true},
                      TerminalRun{"SimulatedEn80", "--python /bin/false --lang en", 80, true}),
    NameOf);

}  // namespace
}  // namespace labcheck
