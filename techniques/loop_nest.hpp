#pragma once
// Loop structure as the source parser saw it, and what it says about cache blocking and
// loop order. Pure data and pure functions: the libclang side (source_techniques.cpp) fills
// a forest of Loops; nothing here knows libclang.
#include <map>
#include <set>
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

// A call of a function: the identifiers of each argument.
struct Call {
  std::string callee;
  std::vector<std::vector<std::string>> arguments;
};

// An integer local with its initializer's identifiers (const int kb = min(KC, k - pc)).
struct Local {
  std::string name;
  std::vector<std::string> from;
};

struct Loop {
  std::string var;                       // the induction variable ("" when not understood)
  std::vector<std::string> start_names;  // identifiers in the initial value (i = ii -> ii)
  std::vector<std::string> bound_names;  // identifiers in the condition (i < mb -> i, mb)
  long step = 0;                         // 1 for ++, the constant of += N, kNamedStep, 0: unknown
  unsigned line = 0;
  std::vector<Loop> inner;               // loops nested anywhere in the body
  std::vector<Update> updates;           // updates directly in this loop's body
  std::vector<Call> calls;               // calls directly in this loop's body
  std::vector<Local> locals;             // integer locals declared directly in its body
};

// A function the file defines: its parameters in order, its outermost loops, and the
// functions it calls in code that may run (not under a condition that never holds).
struct Function {
  std::vector<std::string> parameters;
  std::vector<Loop> loops;
  std::set<std::string> callees;
};
using Functions = std::map<std::string, Function>;

// Code that never runs must not describe a candidate (a loop nest under `if (m < 0)` opened
// archive niches for its twin's work). These decide, from the source alone, what cannot run.
//
// What a condition is over every shape the harness runs: `never` true, `always` true, or
// `unknown`. `dimensions` are names known to be a matrix dimension (matmul's int parameters:
// every harness shape, nominal or check, has each in [1, kMaxDimension]); `constants` are
// names with a known value; any other name may hold any value. Only integer literals, names,
// parentheses, unary - + !, binary + - *, comparisons, && and || are understood; anything else
// (a call, a subscript, a division, a cast, ?:, a value that could overflow an int) makes the
// condition `unknown`, and such code is taken to run.
enum class Truth { never, always, unknown };
inline constexpr long kMaxDimension = 1L << 20;
Truth condition_truth(const std::vector<std::string> &tokens, const std::set<std::string> &dimensions,
                      const std::map<std::string, long> &constants = {});

// The functions of `functions` that `entry` reaches through calls that may run, itself
// included; every function when `entry` is not defined (nothing to start from). C candidates
// cannot call through a pointer (a source check), so direct calls are all there is.
std::set<std::string> reachable_functions(const Functions &functions, const std::string &entry);

// A loop is a tile loop when it steps by more than 1 (or by a name) and some loop with a
// smaller step runs over the tile:
//   - nested in it, starting at its variable: for (ii..; ii += T) ... for (i = ii; ...);
//   - nested in it, bounded by its variable or an integer local computed from it in its body:
//     for (ic..; ic += MC) { mb = min(MC, m - ic); for (ir = 0; ir < mb; ...) };
//   - in a function of the file called in its body, starting at or bounded by the parameter
//     that receives such a name: for (pc..; pc += KC) { kb = ...; pack(kb, ...); } with
//     pack(int kb, ...) { for (p = 0; p < kb; ++p) ... } (GotoBLAS's packing and kernels).
// A strip that hands a callee pointers into it (dot8(&B[j], ...)) is no tile: the callee's
// loops run over their own bounds.
struct BlockingFacts {
  bool blocking = false;
  std::vector<int> tile_sizes;  // constant steps of the tile loops on the most-tiled path
  std::string evidence;
};
BlockingFacts find_blocking(const std::vector<Loop> &loops, const Functions &functions = {});

// The order, outermost first, of the loops over i, j, k for the first update of the form
// C[i,j] += A[i,k] * B[k,j] (subscript shapes are matched by which loop variables appear
// where, tile loops ignored), e.g. "ikj"; "" when no such update is found.
std::string find_loop_order(const std::vector<Loop> &loops, unsigned *line = nullptr);

}  // namespace hpcreward::techniques
