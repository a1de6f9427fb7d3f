#pragma once
// What CPU this machine has, as /proc/cpuinfo names it: for the reports and for prompts that
// tell a model what its code will run on.
#include <string>
#include <string_view>

namespace hpcreward {

// The first "model name" of a /proc/cpuinfo text ("Intel(R) Xeon(R) Platinum 8481C CPU @
// 2.70GHz"); "" when there is none (some architectures, a container that hides it).
std::string cpu_model_from_cpuinfo(std::string_view cpuinfo);

// cpu_model_from_cpuinfo of this machine's /proc/cpuinfo ("" when unreadable).
std::string cpu_model();

}  // namespace hpcreward
