#include "runner/child_process.h"

#include <signal.h>

#include <gtest/gtest.h>

#include "runner/child_failure.h"

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
