// A fixed team of worker threads, one per CPU this process may use, each pinned to its CPU, that
// run one function together and report how long the slowest took. Pinning matters for memory
// bandwidth: the pages a worker touches first are placed on its NUMA node, and it must stay there
// for every later pass.
#pragma once
#include <barrier>
#include <functional>
#include <thread>
#include <vector>

namespace labcheck::cpu_bench {

// The CPUs in this process's affinity mask (taskset, cgroup cpusets), in ascending order.
std::vector<int> AllowedCpus();

class ThreadTeam {
 public:
  explicit ThreadTeam(std::vector<int> cpus);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(cpus_.size()); }
  // Runs work(worker_index) on every worker at once; returns seconds from the start signal until
  // the last worker finished. The caller's thread only waits.
  double Run(const std::function<void(int)>& work);

 private:
  void WorkerLoop(int index);

  std::vector<int> cpus_;
  std::barrier<> start_;
  std::barrier<> done_;
  const std::function<void(int)>* work_ = nullptr;  // written before start_, read after it
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace labcheck::cpu_bench
