#pragma once
// Loop structure as the source parser saw it, and what it says about cache blocking and
// loop order. Pure data and pure functions: the libclang side (source_techniques.cpp) fills
// a forest of Loops; nothing here knows libclang.
#include <string>
#include <vector>

namespace hpcreward::techniques {

// A step given by a name whose value the parser could not fold (a runtime tile size).
inline constexpr long kNamedStep = -1;

// An accumulation `lhs op= f1 * f2` (or `lhs = f1 * f2 ...`) inside a loop: the identifiers
// of each side, so subscripts can be matched to loop variables.
struct Update {
  std::vector<std::string> lhs, first, second;
  unsigned line = 0;
};

struct Loop {
  std::string var;                       // the induction variable ("" when not understood)
  std::vector<std::string> start_names;  // identifiers in the initial value (i = ii -> ii)
  long step = 0;                         // 1 for ++, the constant of += N, kNamedStep, 0: unknown
  unsigned line = 0;
  std::vector<Loop> inner;               // loops nested anywhere in the body
  std::vector<Update> updates;           // updates directly in this loop's body
};

// A loop is a tile loop when it steps by more than 1 (or by a name) and some loop nested
// in it starts at its variable with a smaller step: for (ii..; ii += T) ... for (i = ii; ...).
struct BlockingFacts {
  bool blocking = false;
  std::vector<int> tile_sizes;  // constant steps of the tile loops on the most-tiled path
  std::string evidence;
};
BlockingFacts find_blocking(const std::vector<Loop> &loops);

// The order, outermost first, of the loops over i, j, k for the first update of the form
// C[i,j] += A[i,k] * B[k,j] (subscript shapes are matched by which loop variables appear
// where, tile loops ignored), e.g. "ikj"; "" when no such update is found.
std::string find_loop_order(const std::vector<Loop> &loops, unsigned *line = nullptr);

}  // namespace hpcreward::techniques
