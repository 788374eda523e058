// Progress on stderr while checks run. On a terminal: one live line (which check, how far,
// elapsed) redrawn in place and erased when done; checks in a row skipped for the same reason
// share one finished line ("[5–11/23] SKIP GPUs and driver and 6 more"), rewritten in place.
// Elsewhere: a plain line per finished check.
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
  // The finished line of a check, wrapped to the screen on a terminal; `rows`: screen lines used.
  std::string FinishedLine(const CheckResult& result, int first_index, const std::string& title, double seconds,
                           int& rows) const;

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
  // The run of skipped checks the last finished line stands for (live only): its reason, its
  // first index and title, how many, their time, and the screen lines it took.
  std::string skip_reason_;
  int skip_first_ = 0, skip_count_ = 0, skip_rows_ = 0;
  std::string skip_title_;
  double skip_seconds_ = 0;
  std::atomic<bool> stop_{false};
  std::thread ticker_;
};

}  // namespace labcheck
