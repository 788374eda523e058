#include "cpu_bench/thread_team.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>

namespace labcheck::cpu_bench {

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {  // affinity unreadable: let the scheduler place as many as it reports
    unsigned count = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < (count ? count : 1); ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

ThreadTeam::ThreadTeam(std::vector<int> cpus)
    : cpus_(cpus.empty() ? std::vector<int>{0} : std::move(cpus)),
      start_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)),
      done_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)) {
  threads_.reserve(cpus_.size());
  for (int i = 0; i < size(); ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadTeam::~ThreadTeam() {
  stopping_ = true;
  start_.arrive_and_wait();
  for (std::thread& thread : threads_) thread.join();
}

double ThreadTeam::Run(const std::function<void(int)>& work) {
  work_ = &work;
  const auto begin = std::chrono::steady_clock::now();
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

void ThreadTeam::WorkerLoop(int index) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus_[index], &set);
  // Best effort: a CPU taken away since AllowedCpus() only costs the placement, not the result.
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  for (;;) {
    start_.arrive_and_wait();
    if (stopping_) return;
    (*work_)(index);
    done_.arrive_and_wait();
  }
}

}  // namespace labcheck::cpu_bench
