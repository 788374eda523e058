#include "probes/python_probe.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "platform/files.h"

namespace labcheck::probes {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string FindInPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string dirs(path);
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) return std::filesystem::absolute(candidate).string();
    start = end + 1;
  }
  return {};
}

// Keeps the path as the user named it: a virtualenv's python is a symlink whose target would lose
// the virtualenv's site-packages.
std::string Absolute(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }

}  // namespace

Result<std::string> ResolvePython(const std::string& requested) {
  if (!requested.empty()) {
    if (requested.find('/') == std::string::npos) {
      std::string found = FindInPath(requested);
      if (found.empty()) return Status::Error("'" + requested + "' was not found in PATH");
      return found;
    }
    if (!IsExecutableFile(requested)) return Status::Error(requested + " does not exist or is not executable");
    return Absolute(requested);
  }
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    const char* prefix = std::getenv(var);
    if (!prefix || !*prefix) continue;
    for (const char* name : {"/bin/python", "/bin/python3"}) {
      std::string candidate = std::string(prefix) + name;
      if (IsExecutableFile(candidate)) return Absolute(candidate);
    }
  }
  std::string found = FindInPath("python3");
  if (found.empty()) return Status::Error("no python3 in PATH and no active virtualenv or conda environment");
  return found;
}

ProbeRun RunProbe(const ProbeSpec& spec, const CancelToken& cancel) {
  ProbeRun run;
  if (EmbeddedProbe(spec.probe).empty()) {
    run.result = Status::Error("no embedded probe named " + spec.probe);
    return run;
  }
  auto dir = MakePrivateTempDir("lab_check_probe_");
  if (!dir.ok()) {
    run.result = Status::Error("cannot create a temporary directory: " + dir.status().message());
    return run;
  }
  for (const auto& name : EmbeddedProbeNames()) {
    Status written = WriteFileAtomically(*dir + "/" + name, std::string(EmbeddedProbe(name)));
    if (!written.ok()) {
      RemoveTree(*dir);
      run.result = Status::Error("cannot write the probe: " + written.message());
      return run;
    }
  }

  ChildSpec child;
  child.argv = {spec.python};
  child.argv.insert(child.argv.end(), spec.launcher_args.begin(), spec.launcher_args.end());
  child.argv.push_back(*dir + "/" + spec.probe);
  child.argv.insert(child.argv.end(), spec.args.begin(), spec.args.end());
  child.cwd = *dir;
  child.timeout_s = spec.timeout_s;
  if (spec.startup_budget_s > 0) {
    child.ready_marker = std::string(kAliveMarker);
    child.ready_within_s = spec.startup_budget_s;
  }
  child.set_env = {{"PYTHONDONTWRITEBYTECODE", "1"}, {"PYTHONUNBUFFERED", "1"}, {"PYTHONIOENCODING", "utf-8"}};
  child.set_env.insert(child.set_env.end(), spec.set_env.begin(), spec.set_env.end());
  run.process = RunChild(child, cancel);
  RemoveTree(*dir);

  const ChildOutcome& p = run.process;
  if (!p.started) {
    run.result = Status::Error("cannot start " + spec.python + ": " + p.start_error);
    return run;
  }
  const size_t pos = p.out.rfind(kResultMarker);
  if (pos == std::string::npos || p.timed_out || p.cancelled) {
    std::string tail = p.Tail(15);
    std::string why = p.exited_ok() ? "the probe printed no result line" : p.Describe();
    run.result = Status::Error(tail.empty() ? why : why + "\n" + tail);
    return run;
  }
  size_t end = p.out.find('\n', pos);
  std::string payload = p.out.substr(pos + kResultMarker.size(),
                                     end == std::string::npos ? std::string::npos : end - pos - kResultMarker.size());
  try {
    nlohmann::json j = nlohmann::json::parse(payload);
    if (!j.is_object()) {
      run.result = Status::Error("the probe's result is not a JSON object: " + payload.substr(0, 200));
    } else {
      run.result = std::move(j);
    }
  } catch (const std::exception& e) {
    run.result = Status::Error(std::string("the probe's result is not valid JSON (") + e.what() + "): " +
                               payload.substr(0, 200));
  }
  return run;
}

}  // namespace labcheck::probes
