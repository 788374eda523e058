// Interpreters for the tests that run the real probes: one with torch (Debian's python3-torch in
// CI; LABCHECK_TEST_PYTHON overrides), and one without (the same Python with `-S`, which drops
// dist-packages and so torch).
#pragma once
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "platform/files.h"
#include "runner/child_process.h"

namespace labcheck::smoke::testing {

inline bool PythonHas(const std::string& python, const std::string& module) {
  ChildSpec spec;
  spec.argv = {python, "-c", "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('" + module + "') else 1)"};
  spec.timeout_s = 30;
  return RunChild(spec, CancelToken::Never()).exited_ok();
}

// The torch version as "major.minor" numbers, e.g. {1, 13}.
inline std::pair<int, int> TorchVersion(const std::string& python) {
  ChildSpec spec;
  spec.argv = {python, "-c", "import importlib.metadata as m; v = m.version('torch').split('.'); print(v[0], v[1])"};
  spec.timeout_s = 30;
  ChildOutcome out = RunChild(spec, CancelToken::Never());
  int major = 0, minor = 0;
  if (out.exited_ok()) std::sscanf(out.out.c_str(), "%d %d", &major, &minor);
  return {major, minor};
}

// "" when there is no interpreter with torch here: the caller then GTEST_SKIPs.
inline std::string TorchPython() {
  const char* chosen = std::getenv("LABCHECK_TEST_PYTHON");
  const std::string python = chosen && *chosen ? chosen : "/usr/bin/python3";
  static const bool has_torch = PythonHas(python, "torch");
  return has_torch ? python : "";
}

// A Python without torch: a wrapper that runs the torch interpreter with -S (no site-packages).
class NoTorchPython {
 public:
  explicit NoTorchPython(const std::string& python) : dir_(*MakePrivateTempDir("lab_check_notorch_")) {
    path_ = dir_ + "/python";
    std::ofstream(path_) << "#!/bin/sh\nexec " << python << " -S \"$@\"\n";
    chmod(path_.c_str(), 0755);
  }
  ~NoTorchPython() { RemoveTree(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace labcheck::smoke::testing
