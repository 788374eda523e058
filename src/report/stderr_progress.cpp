#include "report/stderr_progress.h"

#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

#include "report/display_width.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* OutcomeColor(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "\x1b[32m";
    case Outcome::Warn: return "\x1b[33m";
    case Outcome::Fail: return "\x1b[31m";
    case Outcome::Skip: return "\x1b[90m";
    case Outcome::NotRun: return "\x1b[90m";
  }
  return "";
}

}  // namespace

StderrProgress::StderrProgress(Lang lang, bool live, bool color)
    : lang_(lang), live_(live), color_(color) {
  if (live_) ticker_ = std::thread([this] { Ticker(); });
}

StderrProgress::~StderrProgress() {
  stop_ = true;
  if (ticker_.joinable()) ticker_.join();
}

void StderrProgress::Begin(int index, int total, const Text& title) {
  std::lock_guard<std::mutex> lock(mutex_);
  index_ = index;
  total_ = total;
  title_ = title.In(lang_);
  what_.clear();
  fraction_ = -1;
  started_ = NowSeconds();
  active_ = true;
  if (live_) Redraw();
}

void StderrProgress::Update(double fraction, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  fraction_ = fraction;
  what_ = what;
  if (live_) Redraw();
}

std::string StderrProgress::FinishedLine(const CheckResult& result, int first_index, const std::string& title, double seconds,
                                         int& rows) const {
  const std::string status = OutcomeName(result.outcome);
  const std::string colored =
      color_ ? fmt::format("{}{}\x1b[0m", OutcomeColor(result.outcome), status) : status;
  const std::string where = first_index == index_ ? fmt::format("{}", index_) : fmt::format("{}–{}", first_index, index_);
  std::string line = fmt::format("[{}/{}] {} {} {:.1f} s", where, total_, PadRight(colored, 7 + (color_ ? 9 : 0)), title, seconds);
  const std::string& summary = result.summary.In(lang_);
  if (!summary.empty()) line += " — " + summary;
  rows = 1;
  if (live_) {
    // On a terminal the line stays on screen: it wraps within the screen's width, indented.
    const auto lines = WrapToWidth(line, TerminalWidth(STDERR_FILENO) - 4);
    line.clear();
    for (size_t i = 0; i < lines.size(); ++i) line += (i == 0 ? "" : "\n    ") + lines[i];
    rows = static_cast<int>(lines.size());
  }
  return line;
}

void StderrProgress::End(const CheckResult& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = false;
  if (live_) std::fputs("\r\x1b[K", stderr);
  const bool skipped = result.outcome == Outcome::Skip && result.summary.empty();
  const std::string reason = result.reason.In(lang_);
  int rows = 1;
  std::string line;
  if (live_ && skipped && skip_count_ > 0 && reason == skip_reason_) {
    // One more skipped for the same reason: the run's line is rewritten (cursor up, clear below).
    ++skip_count_;
    skip_seconds_ += result.duration_s;
    std::fprintf(stderr, "\x1b[%dA\r\x1b[J", skip_rows_);
    const std::string title = lang_ == Lang::Ru ? fmt::format("{} и ещё {}", skip_title_, skip_count_ - 1)
                                                : fmt::format("{} and {} more", skip_title_, skip_count_ - 1);
    line = FinishedLine(result, skip_first_, title, skip_seconds_, rows);
  } else {
    line = FinishedLine(result, index_, title_, result.duration_s, rows);
    skip_count_ = skipped ? 1 : 0;
    skip_reason_ = reason;
    skip_first_ = index_;
    skip_title_ = title_;
    skip_seconds_ = result.duration_s;
  }
  skip_rows_ = rows;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void StderrProgress::Redraw() {
  if (!active_) return;
  const double elapsed = NowSeconds() - started_;
  std::string line = fmt::format("[{}/{}] {}", index_, total_, title_);
  if (fraction_ >= 0) line += fmt::format(" {:3.0f}%", fraction_ * 100);
  if (!what_.empty()) line += " · " + what_;
  line += fmt::format(" · {:.0f} s", elapsed);
  // One screen line less one column: a line that wrapped could not be redrawn in place.
  std::fprintf(stderr, "\r\x1b[K%s", TruncateToWidth(line, TerminalWidth(STDERR_FILENO) - 1).c_str());
  std::fflush(stderr);
}

void StderrProgress::Ticker() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::lock_guard<std::mutex> lock(mutex_);
    Redraw();
  }
}

}  // namespace labcheck
