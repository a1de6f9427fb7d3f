#pragma once
// Numbers in messages, reasons and option defaults: printf's %g, so 30 reads "30",
// 0.001 "0.001" and 1e-10 "1e-10" rather than std::to_string's fixed six decimals.
#include <string>

namespace hpcreward {

// `significant` digits (17 round-trips a double exactly).
std::string number_text(double value, int significant = 6);
// number_text(seconds) + " s".
std::string seconds_text(double seconds);

}  // namespace hpcreward
