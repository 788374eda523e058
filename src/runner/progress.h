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

namespace labcheck {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void Begin(int index, int total, const Text& title) = 0;
  virtual void Update(double fraction, const std::string& what) = 0;
  virtual void End(const CheckResult& result) = 0;
};

class NullProgress : public ProgressSink {
 public:
  void Begin(int, int, const Text&) override {}
  void Update(double, const std::string&) override {}
  void End(const CheckResult&) override {}
};

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
