#include "expect/deviation.h"

#include <cmath>

#include <fmt/format.h>

namespace labcheck::expect {

Judgement Judge(double measured, reference::Band band, double normal_within, double flag_factor) {
  Judgement j;
  if (measured < band.low) {
    j.ratio = band.low > 0 ? measured / band.low : 1;
  } else if (measured > band.high) {
    j.ratio = band.high > 0 ? measured / band.high : 1;
  }
  if (j.ratio <= 1.0 / flag_factor) {
    j.level = Level::OffLow;
  } else if (j.ratio >= flag_factor) {
    j.level = Level::OffHigh;
  } else if (j.ratio == 1) {
    j.level = Level::InBand;
  } else if (std::abs(j.ratio - 1) <= normal_within + 1e-9) {
    j.level = Level::Normal;
  } else {
    j.level = Level::Notable;
  }
  return j;
}

double Severity(const Judgement& j) { return j.ratio > 0 ? std::abs(std::log(j.ratio)) : 1e9; }

Text FlagText(const Judgement& j) {
  if (j.level == Level::OffLow) {
    const std::string times = j.ratio > 0 ? fmt::format("{:.1f}", 1 / j.ratio) : "∞";
    return T("да: ниже в " + times + " раза", "yes: " + times + "× lower");
  }
  if (j.level == Level::OffHigh) {
    const std::string times = fmt::format("{:.1f}", j.ratio);
    return T("да: выше в " + times + " раза", "yes: " + times + "× higher");
  }
  return T("нет", "no");
}

Text VerdictText(const Judgement& j) {
  const int percent = static_cast<int>(std::lround(std::abs(j.ratio - 1) * 100));
  switch (j.level) {
    case Level::InBand: return T("в пределах ориентира", "within the reference");
    case Level::Normal:
      return j.ratio < 1 ? T(fmt::format("норма (ниже на {}%)", percent), fmt::format("normal ({}% lower)", percent))
                         : T(fmt::format("норма (выше на {}%)", percent), fmt::format("normal ({}% higher)", percent));
    case Level::Notable:
      return j.ratio < 1 ? T(fmt::format("ниже на {}%", percent), fmt::format("{}% lower", percent))
                         : T(fmt::format("выше на {}%", percent), fmt::format("{}% higher", percent));
    case Level::OffLow:
    case Level::OffHigh: return FlagText(j);
  }
  return {};
}

std::string Num(double value) {
  // One decimal at most, none when it is zero: 97.5, 716.8, 32, 0.67 for small factors.
  if (std::abs(value) < 1 && value != 0) return fmt::format("{:.2f}", value);
  std::string s = fmt::format("{:.1f}", value);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string BandText(reference::Band band) {
  // Bands are ranges a person compares with; whole numbers above 10 read best ("68–83").
  auto edge = [](double v) { return v >= 10 ? fmt::format("{:.0f}", v) : Num(v); };
  if (band.low == band.high) return edge(band.low);
  return edge(band.low) + "–" + edge(band.high);
}

}  // namespace labcheck::expect
