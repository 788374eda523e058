#include "runner/child_job.h"

#include <gtest/gtest.h>

namespace labcheck {
namespace {

TEST(ChildJob, UnknownJobIsAnErrorWithTheChildsWords) {
  ChildJobOutcome o = RunChildJob(LAB_CHECK_BINARY, "no-such-job", {}, 10, CancelToken::Never());
  EXPECT_FALSE(o.result.ok());
  EXPECT_EQ(o.process.exit_code, 2);
  EXPECT_NE(o.result.status().message().find("unknown job"), std::string::npos);
}

TEST(ChildJob, RegisteredJobRunsInProcessMain) {
  RegisterChildJob("test-echo", [](const std::vector<std::string>& args) -> Result<nlohmann::json> {
    return nlohmann::json{{"args", args}};
  });
  testing::internal::CaptureStdout();
  int code = RunChildJobMain("test-echo", {"a", "b"});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("LABCHECK_CHILD_RESULT {\"args\":[\"a\",\"b\"]}"), std::string::npos);
}

TEST(ChildJob, JobErrorsBecomeAnErrorLine) {
  RegisterChildJob("test-fail", [](const std::vector<std::string>&) -> Result<nlohmann::json> {
    return Status::Error("no device");
  });
  testing::internal::CaptureStdout();
  int code = RunChildJobMain("test-fail", {});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 3);
  EXPECT_NE(out.find("{\"error\":\"no device\"}"), std::string::npos);
}

}  // namespace
}  // namespace labcheck
