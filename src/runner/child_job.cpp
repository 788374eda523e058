#include "runner/child_job.h"

#include <cstdio>
#include <exception>
#include <map>
#include <mutex>

namespace labcheck {
namespace {

std::map<std::string, ChildJobFn>& Jobs() {
  static std::map<std::string, ChildJobFn> jobs;
  return jobs;
}
std::mutex g_jobs_mutex;

// The result travels as the last line of stdout that starts with this marker, so that whatever a
// vendor library prints before it cannot be mistaken for the result.
constexpr std::string_view kMarker = "LABCHECK_CHILD_RESULT ";

}  // namespace

void RegisterChildJob(const std::string& name, ChildJobFn fn) {
  std::lock_guard<std::mutex> lock(g_jobs_mutex);
  Jobs()[name] = std::move(fn);
}

int RunChildJobMain(const std::string& name, const std::vector<std::string>& args) {
  ChildJobFn fn;
  {
    std::lock_guard<std::mutex> lock(g_jobs_mutex);
    auto it = Jobs().find(name);
    if (it == Jobs().end()) {
      std::fprintf(stderr, "lab_check internal-child: unknown job '%s'\n", name.c_str());
      return 2;
    }
    fn = it->second;
  }
  nlohmann::json line;
  int code = 0;
  try {
    Result<nlohmann::json> result = fn(args);
    if (result.ok()) {
      line = std::move(result).value();
    } else {
      line = {{"error", result.status().message()}};
      code = 3;
    }
  } catch (const std::exception& e) {
    line = {{"error", std::string("exception: ") + e.what()}};
    code = 3;
  }
  std::fflush(stdout);
  std::printf("\n%s%s\n", kMarker.data(), line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
  return code;
}

ChildJobOutcome RunChildJob(const std::string& self_exe, const std::string& job,
                            const std::vector<std::string>& args, double timeout_s,
                            const CancelToken& cancel,
                            std::vector<std::pair<std::string, std::string>> set_env) {
  ChildJobOutcome outcome;
  ChildSpec spec;
  spec.argv = {self_exe, "internal-child", job};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout_s = timeout_s;
  spec.set_env = std::move(set_env);
  outcome.process = RunChild(spec, cancel);
  const ChildOutcome& p = outcome.process;

  const std::string& out = p.out;
  size_t pos = out.rfind(kMarker);
  if (pos != std::string::npos) {
    size_t end = out.find('\n', pos);
    std::string payload = out.substr(pos + kMarker.size(),
                                     end == std::string::npos ? std::string::npos : end - pos - kMarker.size());
    try {
      nlohmann::json j = nlohmann::json::parse(payload);
      if (j.is_object() && j.contains("error") && j.size() == 1) {
        outcome.result = Status::Error(j["error"].get<std::string>());
      } else {
        outcome.result = std::move(j);
      }
      return outcome;
    } catch (const std::exception& e) {
      outcome.result = Status::Error(std::string("unreadable result from child: ") + e.what());
      return outcome;
    }
  }
  std::string why = p.Describe();
  std::string tail = p.Tail(10);
  outcome.result = Status::Error(tail.empty() ? why : why + "\n" + tail);
  return outcome;
}

}  // namespace labcheck
