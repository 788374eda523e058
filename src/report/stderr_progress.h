// Progress on stderr while checks run. On a terminal: one live line (which check, how far,
// elapsed) redrawn in place and erased when done. Elsewhere: a plain line per finished check.
#pragma once
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "core/check_result.h"
#include "core/text.h"
#include "runner/progress.h"

namespace labcheck {

class StderrProgress : public ProgressSink {
 public:
  StderrProgress(Lang lang, bool live, bool color);
  ~StderrProgress() override;
  void Begin(int index, int total, const Text& title) override;
  void Update(double fraction, const std::string& what) override;
  void End(const CheckResult& result) override;

 private:
  void Redraw();
  void Ticker();

  Lang lang_;
  bool live_;
  bool color_;
  std::mutex mutex_;
  std::string title_;
  std::string what_;
  double fraction_ = -1;
  int index_ = 0, total_ = 0;
  double started_ = 0;
  bool active_ = false;
  std::atomic<bool> stop_{false};
  std::thread ticker_;
};

}  // namespace labcheck
