#include "runner/child_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runner/child_failure.h"
#include "runner/process_state.h"

namespace labcheck {
namespace {

ChildOutcome RunCmd(std::vector<std::string> argv, double timeout_s = 10) {
  ChildSpec spec;
  spec.argv = std::move(argv);
  spec.timeout_s = timeout_s;
  return RunChild(spec, CancelToken::Never());
}

TEST(RunChild, CapturesOutputAndExitCode) {
  ChildOutcome o = RunCmd({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(o.started);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_EQ(o.err, "err\n");
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_FALSE(o.exited_ok());
  EXPECT_EQ(o.Describe(), "exit code 3");
}

TEST(RunChild, ArgumentsReachTheChildUnparsed) {
  // No shell: quotes, $ and ; are plain characters of one argument.
  ChildOutcome o = RunCmd({"printf", "%s", "a b; $HOME 'q'"});
  EXPECT_EQ(o.out, "a b; $HOME 'q'");
}

TEST(RunChild, KillsAHangingChildAtItsTimeout) {
  ChildOutcome o = RunCmd({"sleep", "30"}, 0.5);
  EXPECT_TRUE(o.timed_out);
  EXPECT_LT(o.duration_s, 5.0);
  EXPECT_NE(DescribeChildFailure(o).en.find("did not finish"), std::string::npos);
}

TEST(RunChild, KillsTheWholeProcessGroup) {
  // The child starts a grandchild that would outlive it; the timeout must take both.
  ChildOutcome o = RunCmd({"sh", "-c", "sleep 30 & sleep 30; wait"}, 0.5);
  EXPECT_TRUE(o.timed_out);
  EXPECT_LT(o.duration_s, 5.0);
}

TEST(RunChild, ReportsACrashBySignal) {
  ChildOutcome o = RunCmd({"sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(o.term_signal, SIGSEGV);
  EXPECT_NE(o.Describe().find("SIGSEGV"), std::string::npos);
  CheckResult r = ChildFailure("x", o);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.ru.find("процесс упал"), std::string::npos);
}

TEST(RunChild, MissingProgramIsAStartError) {
  ChildOutcome o = RunCmd({"/nonexistent/program"});
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("/nonexistent/program"), std::string::npos);
}

TEST(RunChild, PassesEnvironmentAndStdin) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "read line; echo \"$LABCHECK_X:$line\""};
  spec.set_env = {{"LABCHECK_X", "42"}};
  spec.stdin_data = "hello\n";
  ChildOutcome o = RunChild(spec, CancelToken::Never());
  EXPECT_EQ(o.out, "42:hello\n");
}

TEST(RunChild, StopsWhenCancelled) {
  std::atomic<bool> flag{true};
  ChildSpec spec;
  spec.argv = {"sleep", "30"};
  spec.timeout_s = 30;
  ChildOutcome o = RunChild(spec, CancelToken(&flag));
  EXPECT_TRUE(o.cancelled);
  EXPECT_LT(o.duration_s, 5.0);
}

TEST(ChildOutcome, TailKeepsTheLastLines) {
  ChildOutcome o;
  o.err = "1\n2\n3\n4\n";
  EXPECT_EQ(o.Tail(2), "3\n4");
  o.err = "";
  o.out = "only stdout\n";
  EXPECT_EQ(o.Tail(5), "only stdout");
}

TEST(RunChild, AHandshakeMissedIsKilledLongBeforeTheTimeout) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "sleep 30"};
  spec.timeout_s = 30;
  spec.ready_marker = "ALIVE";
  spec.ready_within_s = 0.5;
  ChildOutcome o = RunChild(spec, CancelToken::Never());
  EXPECT_TRUE(o.not_ready);
  EXPECT_TRUE(o.timed_out);
  EXPECT_LT(o.duration_s, 10);
  EXPECT_NE(o.Describe().find("did not answer"), std::string::npos) << o.Describe();
}

TEST(RunChild, AHandshakeGivenLetsTheChildRunOn) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "echo ALIVE; sleep 1; echo done"};
  spec.timeout_s = 30;
  spec.ready_marker = "ALIVE";
  spec.ready_within_s = 0.5;
  ChildOutcome o = RunChild(spec, CancelToken::Never());
  EXPECT_TRUE(o.exited_ok()) << o.Describe();
  EXPECT_FALSE(o.not_ready);
  EXPECT_NE(o.out.find("done"), std::string::npos);
}

}  // namespace
}  // namespace labcheck

namespace labcheck {
namespace {

TEST(RunChild, AChildThatOutlivesSigkillIsGivenUpOnSoonAfterItsDeadline) {
  // A child stuck in the driver (state D) is never reaped. The seam stands in for that: the
  // supervisor's reaper never reaps, so after SIGTERM, SIGKILL and the grace the supervisor must
  // stop waiting, say what /proc showed (here the killed child's zombie), and return.
  pid_t child = -1;
  ChildSpec spec;
  spec.argv = {"sleep", "30"};
  spec.timeout_s = 0.5;
  spec.give_up_after_kill_s = 1;
  spec.try_reap = [&child](pid_t pid, int*) {
    child = pid;
    return pid_t{0};
  };
  ChildOutcome o = RunChild(spec, CancelToken::Never());
  EXPECT_TRUE(o.abandoned);
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(o.exited_ok());
  EXPECT_EQ(o.exit_code, -1);  // no wait status was read: nothing about how it ended is known
  // The bound: the FAIL comes within 15 s of the deadline (here 0.5 + 2 + 1 s and polling).
  EXPECT_LT(o.duration_s, spec.timeout_s + 15);
  EXPECT_NE(o.abandoned_state.find("Z (zombie)"), std::string::npos) << o.abandoned_state;
  EXPECT_FALSE(o.stuck_in_kernel);
  EXPECT_NE(o.Describe().find("still there after SIGKILL"), std::string::npos) << o.Describe();
  ASSERT_GT(child, 0);
  EXPECT_EQ(waitpid(child, nullptr, 0), child);  // the test reaps what its seam held back
}

TEST(ChildFailure, AChildStuckInTheKernelIsAFailOfItsCheckThatAsksForAReboot) {
  ChildOutcome o;
  o.started = o.timed_out = o.abandoned = o.stuck_in_kernel = true;
  o.abandoned_state = "D (uninterruptible sleep) in os_acquire_mutex";
  CheckResult r = ChildFailure("gpu.matmul", o);
  EXPECT_EQ(r.id, "gpu.matmul");
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("stuck in the NVIDIA driver (uninterruptible)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("reboot needed"), std::string::npos);
  EXPECT_NE(r.reason.en.find("os_acquire_mutex"), std::string::npos);
  EXPECT_NE(r.reason.ru.find("перезагрузка"), std::string::npos);
  EXPECT_NE(o.Describe().find("reboot needed"), std::string::npos);
}

TEST(ProcessState, TheStateFollowsTheLastParenthesisOfTheCommandName) {
  EXPECT_EQ(StateFromStatLine("4242 (python3) D 1 4242 4242 0"), 'D');
  EXPECT_EQ(StateFromStatLine("4242 (a (b) c) S 1 2"), 'S');  // comm may hold ") "
  EXPECT_EQ(StateFromStatLine("garbage"), std::nullopt);
}

TEST(ProcessState, ReadsStateAndWchanFromAProcTree) {
  char pattern[] = "/tmp/labcheck_proc_XXXXXX";
  const std::string root = mkdtemp(pattern);
  const std::string folder = root + "/77";
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  std::ofstream(folder + "/stat") << "77 (lab_check) D 1 77 77 0 -1\n";
  std::ofstream(folder + "/wchan") << "os_acquire_mutex";
  std::optional<ProcessState> state = ReadProcessState(77, root);
  ASSERT_TRUE(state);
  EXPECT_TRUE(state->uninterruptible());
  EXPECT_EQ(state->Describe(), "D (uninterruptible sleep) in os_acquire_mutex");
  std::ofstream(folder + "/wchan") << "0";  // the kernel's "nothing to show"
  EXPECT_EQ(ReadProcessState(77, root)->Describe(), "D (uninterruptible sleep)");
  EXPECT_EQ(ReadProcessState(78, root), std::nullopt);
  std::filesystem::remove_all(root);
  // And this process, as the real /proc shows it: running.
  EXPECT_EQ(ReadProcessState(getpid())->state, 'R');
}

}  // namespace
}  // namespace labcheck
