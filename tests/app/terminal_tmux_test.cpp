// The terminal report in a real terminal of 80 and 120 columns (tmux): no line wider than the
// screen, and the wider screen is used. tmux joins the lines it wrapped (capture-pane -J), so a
// line we printed too wide shows up as one long line (tmux_pane.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "parted_figures.h"
#include "report/display_width.h"
#include "tmux_pane.h"

namespace labcheck {
namespace {

class TmuxTerminal : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh --with-tests installs it)";
    pane_.emplace();
  }
  std::string ScreenOf(const std::string& args, int width, const std::string& env = "") { return pane_->ScreenOf(args, width, env); }
  // The widest line of `screen` (our command's echo left out), each over `width` a failure.
  size_t WidestLine(const std::string& screen, int width) {
    size_t widest = 0;
    std::istringstream in(screen);
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      if (line.find(LAB_CHECK_BINARY) != std::string::npos) continue;  // the shell's echo of our command
      widest = std::max(widest, DisplayWidth(line));
      EXPECT_LE(DisplayWidth(line), static_cast<size_t>(width)) << "at " << width << " columns: " << line;
    }
    return widest;
  }
  // The lines the run printed: everything on the screen before our end marker.
  static size_t LinesPrinted(const std::string& screen) {
    const size_t done = screen.find("LAB_CHECK_DONE");
    const std::string printed = screen.substr(0, done == std::string::npos ? screen.size() : done);
    return static_cast<size_t>(std::count(printed.begin(), printed.end(), '\n'));
  }
  std::optional<TmuxPane> pane_;
};

TEST_P(TmuxTerminal, NoLineWiderThanThePane) {
  const int width = GetParam();
  const std::string screen = ScreenOf("--quick --lang en", width);
  ASSERT_NE(screen.find("Checks"), std::string::npos) << screen;  // the status table was shown
  const size_t widest = WidestLine(screen, width);
  // The wider terminal is used, not a fixed 80 columns.
  if (width > 100) {
    EXPECT_GT(widest, 80u) << screen;
  }
}

// Issue 38's budget: a GPU-less --quick (stages 0–3 of the course) gives the verdict on one screen
// and a bit, not 312 lines: ≤ 70 at 80 columns (and so at 120). --verbose still prints every table.
TEST_P(TmuxTerminal, GpuLessQuickFitsItsLineBudget) {
  const int width = GetParam();
  const std::string screen = ScreenOf("--quick --lang en --python /bin/false", width, "LD_LIBRARY_PATH=/nonexistent");
  ASSERT_NE(screen.find("Checks"), std::string::npos) << screen;
  EXPECT_LE(LinesPrinted(screen), 70u) << screen;
  EXPECT_NE(screen.find("The GPU rows need a GPU"), std::string::npos) << screen;
  EXPECT_NE(screen.find("Report: "), std::string::npos) << screen;
  // The checks' own tables are the report's (and --verbose's), not the default terminal's.
  EXPECT_EQ(screen.find("Figure"), std::string::npos) << screen;
}

// The full check on the simulated course machine: ≤ 120 lines at 120 columns. Its unpaced profile
// (the same figures without real-time pacing) keeps the test short. Needs the simulated libraries
// (built with the sim tests); without them there is nothing to count.
class TmuxTerminalWide : public TmuxTerminal {};

TEST_P(TmuxTerminalWide, SimulatedCourseMachineFitsItsLineBudget) {
  const int width = GetParam();
  const std::string sim = std::string(LAB_CHECK_BINARY).substr(0, std::string(LAB_CHECK_BINARY).rfind('/')) + "/sim-nvidia";
  if (access((sim + "/libcuda.so.1").c_str(), R_OK) != 0) GTEST_SKIP() << "no simulated driver in " << sim;
  const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/course-4x4080-unpaced.json";
  const std::string screen = ScreenOf("--lang en --python /bin/false", width,
                                      "-u CUDA_VISIBLE_DEVICES LD_LIBRARY_PATH='" + sim + "' LABCHECK_SIM_MACHINE='" + machine + "'");
  ASSERT_NE(screen.find("Expected → measured"), std::string::npos) << screen;
  EXPECT_NE(screen.find("all-reduce, bus bandwidth"), std::string::npos) << screen;
  EXPECT_LE(LinesPrinted(screen), 120u) << screen;
  WidestLine(screen, width);
  // Issue 56's "and 11" / "more" was at 120 columns (terminal_figures_tmux_test.cpp has the rest).
  for (const std::string& split : screen_check::PartedFigures(screen)) ADD_FAILURE() << "at " << width << " columns:\n" << split;
}

// A calculator's prose (what it applied, what it assumed) is wrapped to the pane as well: Llama 4's
// notes run to several hundred characters.
TEST_P(TmuxTerminal, CalculatorNotesFitThePane) {
  const int width = GetParam();
  const std::string config = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/configs/llama-4-scout-17b-16e-instruct/config.json";
  const std::string screen = ScreenOf("kv '" + config + "' --context 32768 --lang en", width);
  ASSERT_NE(screen.find("Assumptions:"), std::string::npos) << screen;
  ASSERT_NE(screen.find("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1"), std::string::npos) << screen;
  WidestLine(screen, width);
}

// serve's prose (the source URL, the assumptions, the vLLM profile line) wraps at spaces within
// the pane, and the vLLM command keeps its indent on the lines it wraps to.
TEST_P(TmuxTerminal, ServeProseWrapsAtSpaces) {
  const int width = GetParam();
  const std::string screen = ScreenOf("serve llama-3.1-8b --lang en", width);
  ASSERT_NE(screen.find("Assumptions:"), std::string::npos) << screen;
  WidestLine(screen, width);
  EXPECT_NE(screen.find("\n  vllm serve meta-llama/Llama-3.1-8B"), std::string::npos) << screen;
  if (width < 100) EXPECT_NE(screen.find("\n    --"), std::string::npos) << screen;
}

INSTANTIATE_TEST_SUITE_P(Widths, TmuxTerminal, ::testing::Values(80, 120));
// The full check's line budget is for 120 columns only.
INSTANTIATE_TEST_SUITE_P(Widths, TmuxTerminalWide, ::testing::Values(120));

}  // namespace
}  // namespace labcheck
