#include "core/run_stats.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

namespace nvsim {

namespace {

struct Stats {
  int fd = -1;  // -1: LABCHECK_SIM_STATS unset or the file could not be made
  std::string job;
  // By Work, in its order (core/timeline.h): copy, matmul, collective, memtest.
  std::array<double, 4> modelled{}, paced{};
  double waited = 0;
};

// The child job's name (`lab_check internal-child JOB …`), else the program's.
std::string JobName() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg, program, job;
  for (int i = 0; std::getline(in, arg, '\0'); ++i) {
    if (i == 0) program = arg.substr(arg.rfind('/') + 1);
    if (i == 2 && job.empty()) job = arg;
    if (i == 1 && arg != "internal-child") break;
  }
  return job.empty() ? program : job;
}

Stats& State() {
  static Stats* stats = [] {
    auto* s = new Stats();  // never destroyed: written until _exit
    const char* dir = std::getenv("LABCHECK_SIM_STATS");
    if (dir == nullptr || *dir == '\0') return s;
    s->job = JobName();
    const std::string path = std::string(dir) + "/" + std::to_string(getpid()) + ".json";
    s->fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return s;
  }();
  return *stats;
}

std::mutex& WriteLock() {
  static std::mutex mutex;
  return mutex;
}

// One JSON object, padded to a fixed length so that a shorter rewrite leaves no tail behind.
void Write(const Stats& s) {
  char line[512];
  const int n = std::snprintf(
      line, sizeof line,
      "{\"job\": \"%s\", \"modelled_s\": {\"copy\": %.4f, \"matmul\": %.4f, \"collective\": %.4f, \"memtest\": %.4f}, "
      "\"paced_s\": {\"copy\": %.4f, \"matmul\": %.4f, \"collective\": %.4f, \"memtest\": %.4f}, \"waited_s\": %.4f}",
      s.job.c_str(), s.modelled[0], s.modelled[1], s.modelled[2], s.modelled[3], s.paced[0], s.paced[1], s.paced[2],
      s.paced[3], s.waited);
  if (n <= 0 || n >= static_cast<int>(sizeof line) - 1) return;
  std::string padded(line, static_cast<size_t>(n));
  padded.resize(sizeof line - 2, ' ');
  padded += '\n';
  (void)!pwrite(s.fd, padded.data(), padded.size(), 0);
}

}  // namespace

void CountWork(Work kind, double modelled_s, double paced_s) {
  static_assert(static_cast<size_t>(Work::Memtest) + 1 == std::tuple_size<decltype(Stats::modelled)>::value,
                "one slot per kind of Work");
  Stats& s = State();
  if (s.fd < 0) return;
  std::lock_guard<std::mutex> lock(WriteLock());
  s.modelled[static_cast<size_t>(kind)] += modelled_s;
  s.paced[static_cast<size_t>(kind)] += paced_s;
  Write(s);
}

void CountWaited(double seconds) {
  Stats& s = State();
  if (s.fd < 0 || seconds <= 0) return;
  std::lock_guard<std::mutex> lock(WriteLock());
  s.waited += seconds;
  Write(s);
}

}  // namespace nvsim
