// What the runner tells about its progress: which check began, how far it is, how it ended. The
// runner knows only this interface; the view on stderr is report/stderr_progress.h.
#pragma once
#include <string>

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

}  // namespace labcheck
