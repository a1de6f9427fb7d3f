#include "common/number_text.hpp"

#include <cstdio>

namespace hpcreward {

std::string number_text(double value, int significant) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", significant, value);
  return text;
}

std::string seconds_text(double seconds) { return number_text(seconds) + " s"; }

}  // namespace hpcreward
