// Runs the same measurement on every GPU at once, one thread per GPU. Each thread prepares, then
// waits at a barrier so the timed parts overlap: cards that share a PCIe switch, a power supply
// or a CPU's lanes show it only under simultaneous load.
#pragma once
#include <barrier>
#include <functional>
#include <thread>
#include <vector>

#include "core/status.h"

namespace labcheck::gpu {

// `work(index, wait_for_all)` prepares, calls wait_for_all() once, then measures. A thread that
// fails before reaching the barrier drops out of it, so the others never wait for it forever.
template <typename T>
std::vector<Result<T>> RunOnEveryDevice(int count, const std::function<Result<T>(int, const std::function<void()>&)>& work) {
  std::vector<Result<T>> results(count, Result<T>(Status::Error("not run")));
  std::barrier sync(count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      bool waited = false;
      std::function<void()> wait = [&] {
        if (!waited) {
          waited = true;
          sync.arrive_and_wait();
        }
      };
      results[i] = work(i, wait);
      if (!waited) sync.arrive_and_drop();
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace labcheck::gpu
