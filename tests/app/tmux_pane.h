// A tmux server of our own with one pane of a given width, running the built lab_check in it as a
// user would (a real tty: colours, the live progress line, wrapping to the pane), and the whole
// screen once the run has ended. tmux joins the lines it wrapped itself (capture-pane -J), so a
// line we printed too wide comes back as one long line, and each line we wrapped as its own.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "platform/files.h"
#include "runner/child_process.h"

namespace labcheck {

inline bool HaveTmux() {
  ChildSpec spec;
  spec.argv = {"tmux", "-V"};
  spec.timeout_s = 10;
  return RunChild(spec, CancelToken::Never()).exited_ok();
}

class TmuxPane {
 public:
  TmuxPane() {
    static std::atomic<int> count{0};
    dir_ = *MakePrivateTempDir("lab_check_tmux_");
    socket_ = "lab_check_test_" + std::to_string(getpid()) + "_" + std::to_string(count++);
    (void)WriteFileAtomically(dir_ + "/tmux.conf", "set -g history-limit 50000\n");
  }
  ~TmuxPane() {
    Tmux({"kill-server"});
    RemoveTree(dir_);
  }
  TmuxPane(const TmuxPane&) = delete;
  TmuxPane& operator=(const TmuxPane&) = delete;

  // Runs `args` (lab_check's arguments, shell-quoted) in a pane of `width` columns and returns the
  // whole screen once it has ended. `env`: assignments put before the command. One run per pane.
  std::string ScreenOf(const std::string& args, int width, const std::string& env = "") {
    const std::string command = std::string("cd '") + dir_ + "' && " + (env.empty() ? "" : "env " + env + " ") + "'" +
                                LAB_CHECK_BINARY + "' " + args + "; echo LAB_CHECK_DONE; sleep 600";
    ChildOutcome started = Tmux({"new-session", "-d", "-s", "lab", "-x", std::to_string(width), "-y", "50", command});
    EXPECT_TRUE(started.exited_ok()) << started.Describe() << started.err;
    std::string screen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    while (std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      ChildOutcome captured = Tmux({"capture-pane", "-p", "-J", "-S", "-", "-t", "lab"});
      screen = captured.out;
      if (screen.find("LAB_CHECK_DONE") != std::string::npos) break;
    }
    EXPECT_NE(screen.find("LAB_CHECK_DONE"), std::string::npos) << "the run did not end in time:\n" << screen;
    return screen;
  }

 private:
  ChildOutcome Tmux(std::vector<std::string> args) {
    ChildSpec spec;
    spec.argv = {"tmux", "-L", socket_, "-f", dir_ + "/tmux.conf"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.unset_env = {"TMUX", "COLUMNS", "LINES"};  // the pane's own size must decide
    spec.set_env = {{"TERM", "xterm-256color"}};
    spec.timeout_s = 20;
    return RunChild(spec, CancelToken::Never());
  }

  std::string dir_, socket_;
};

}  // namespace labcheck
