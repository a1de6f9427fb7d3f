#pragma once
// What may run in an executor once its filter is on: the pages the load mapped executable,
// and no others (the filters refuse PROT_EXEC from then on). For that to hold, no page may be
// writable and executable at once when the filter goes on: an object that asks for an
// executable stack (GNU nested functions' trampolines do) makes every thread stack so, and
// code written there would run. Such a load is refused, before any candidate code runs.
#include <string>

namespace hpcreward {

// The first line of `maps` (the text of /proc/<pid>/maps) whose permissions are both
// writable and executable; empty when there is none.
std::string first_writable_code_mapping(const std::string &maps);

// The same for this process; throws SandboxError when /proc/self/maps cannot be read.
std::string writable_code_mapping_of_this_process();

}  // namespace hpcreward
