// How far a measured figure is from its reference band, in the course's words: inside the band,
// "normal" (off by up to 20 %), notably off, or off by 2× or more either way (flagged).
#pragma once
#include <string>

#include "core/text.h"
#include "reference/gpu_catalog.h"

namespace labcheck::expect {

enum class Level { InBand, Normal, Notable, OffLow, OffHigh };

struct Judgement {
  // measured / the nearest edge of the band: 1.0 inside it, 0.5 = half the low edge.
  double ratio = 1;
  Level level = Level::InBand;

  bool flagged() const { return level == Level::OffLow || level == Level::OffHigh; }
};

// normal_within: 0.20 (the course: "10–20 % is no reason for alarm"); flag_factor: 2.
Judgement Judge(double measured, reference::Band band, double normal_within, double flag_factor);

// How bad a judgement is, comparable across rows: |log(ratio)|.
double Severity(const Judgement& j);

// The «Расхождение > 2×» cell: «нет», «да: ниже в 2.6 раза», «да: выше в 3.1 раза».
Text FlagText(const Judgement& j);
// A short verdict: «в пределах ориентира», «норма (−12 %)», «ниже на 35 %».
Text VerdictText(const Judgement& j);

// Figures as the report prints them: 97.5, 716.8, 31.5, 12; bands as "68–83".
std::string Num(double value);
std::string BandText(reference::Band band);

}  // namespace labcheck::expect
