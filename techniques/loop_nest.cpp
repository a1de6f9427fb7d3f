#include "techniques/loop_nest.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>

namespace hpcreward::techniques {

namespace {

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool mentions(const std::vector<std::string> &names, const std::set<std::string> &set) {
  return std::any_of(names.begin(), names.end(), [&](const std::string &n) { return set.count(n) != 0; });
}

bool steps_less(const Loop &inner, const Loop &tile) {
  return tile.step == kNamedStep || (inner.step >= 1 && inner.step < tile.step) || inner.step == 0;
}

// The tile variable and the integer locals computed from it within the tile loop.
std::set<std::string> block_names(const Loop &tile) {
  std::set<std::string> names = {tile.var};
  auto add_locals = [&](const Loop &loop, auto &self) -> void {
    for (const Local &local : loop.locals)
      if (mentions(local.from, names)) names.insert(local.name);
    for (const Loop &inner : loop.inner) self(inner, self);
  };
  add_locals(tile, add_locals);
  return names;
}

// Some loop in `loops` (at any depth) steps less than `tile` and starts at or is bounded by
// one of `names`.
bool loop_over(const std::vector<Loop> &loops, const std::set<std::string> &names, const Loop &tile) {
  for (const Loop &loop : loops) {
    if (steps_less(loop, tile) && (mentions(loop.start_names, names) || mentions(loop.bound_names, names)))
      return true;
    if (loop_over(loop.inner, names, tile)) return true;
  }
  return false;
}

bool calls_run_over(const Loop &loop, const std::set<std::string> &names, const Loop &tile, const Functions &functions,
                    int depth);

// `function` runs a loop over one of its parameters `names`, itself or through the functions it
// passes them to, `depth` calls down at most (a blocked kernel's loop over the block is often a
// packing or micro-kernel helper two calls below the tile loop).
bool function_runs_over(const Function &function, const std::set<std::string> &names, const Loop &tile,
                        const Functions &functions, int depth) {
  if (loop_over(function.loops, names, tile)) return true;
  if (depth <= 1) return false;
  for (const Loop &loop : function.loops)
    if (calls_run_over(loop, names, tile, functions, depth - 1)) return true;
  return false;
}

// A call in `loop`'s body (at any depth) passes one of `names` to a parameter that the callee
// runs a loop over (function_runs_over).
bool calls_run_over(const Loop &loop, const std::set<std::string> &names, const Loop &tile, const Functions &functions,
                    int depth) {
  for (const Call &call : loop.calls) {
    const auto callee = functions.find(call.callee);
    if (callee == functions.end()) continue;
    const Function &function = callee->second;
    for (std::size_t a = 0; a < call.arguments.size() && a < function.parameters.size(); ++a)
      if (mentions(call.arguments[a], names) &&
          function_runs_over(function, {function.parameters[a]}, tile, functions, depth))
        return true;
  }
  for (const Loop &inner : loop.inner)
    if (calls_run_over(inner, names, tile, functions, depth)) return true;
  return false;
}

// Calls this many levels below a tile loop are followed (recursion is bounded by it too).
constexpr int kCallDepthFollowed = 3;

bool starts_from(const Loop &loop, const Loop &tile) {
  for (const Loop &inner : loop.inner) {
    if (contains(inner.start_names, tile.var) && steps_less(inner, tile)) return true;
    if (starts_from(inner, tile)) return true;
  }
  return false;
}

bool is_tile_loop(const Loop &loop, const Functions &functions) {
  if (loop.var.empty() || (loop.step <= 1 && loop.step != kNamedStep)) return false;
  if (starts_from(loop, loop)) return true;
  std::set<std::string> block = block_names(loop);
  std::set<std::string> derived = block;
  derived.erase(loop.var);  // the variable itself bounds triangular loops, not tiles
  return loop_over(loop.inner, derived, loop) || calls_run_over(loop, block, loop, functions, kCallDepthFollowed);
}

// The root-to-leaf path with the most tile loops: {tile loops on it, in order}.
std::vector<const Loop *> most_tiled_path(const Loop &loop, const Functions &functions) {
  std::vector<const Loop *> best;
  for (const Loop &inner : loop.inner) {
    std::vector<const Loop *> path = most_tiled_path(inner, functions);
    if (path.size() > best.size()) best = std::move(path);
  }
  if (is_tile_loop(loop, functions)) best.insert(best.begin(), &loop);
  return best;
}

std::set<std::string> loop_vars_in(const std::vector<std::string> &names,
                                   const std::set<std::string> &vars) {
  std::set<std::string> out;
  for (const std::string &name : names)
    if (vars.count(name) != 0) out.insert(name);
  return out;
}

std::set<std::string> minus(std::set<std::string> a, const std::set<std::string> &b) {
  for (const std::string &name : b) a.erase(name);
  return a;
}

std::string single(const std::set<std::string> &set) {
  return set.size() == 1 ? *set.begin() : std::string();
}

// i, j, k from which loop variables index C (lhs), A (first) and B (second factor).
bool assign_ijk(const Update &update, const std::set<std::string> &vars, std::string ijk[3]) {
  const auto lhs = loop_vars_in(update.lhs, vars);
  const auto first = loop_vars_in(update.first, vars);
  const auto second = loop_vars_in(update.second, vars);
  std::string i, j, k;
  if (!first.empty() && !second.empty()) {  // A[i,k] * B[k,j]
    std::set<std::string> common;
    for (const std::string &name : first)
      if (second.count(name) != 0) common.insert(name);
    k = single(common);
    i = single(minus(first, {k}));
    j = single(minus(second, {k}));
  } else if (!lhs.empty()) {  // one factor hoisted into a scalar: C[i,j] += a * B[k,j]
    std::set<std::string> both = first;
    both.insert(second.begin(), second.end());
    k = single(minus(both, lhs));
    if (!first.empty()) {
      i = single(minus(first, {k}));
      j = single(minus(lhs, {i}));
    } else {
      j = single(minus(second, {k}));
      i = single(minus(lhs, {j}));
    }
  }
  if (i.empty() || j.empty() || k.empty() || i == j || j == k || i == k) return false;
  ijk[0] = i, ijk[1] = j, ijk[2] = k;
  return true;
}

bool order_in(const Loop &loop, std::vector<const Loop *> &stack, std::string &order,
              unsigned *line) {
  stack.push_back(&loop);
  std::set<std::string> vars;
  for (const Loop *outer : stack)
    if (!outer->var.empty() && !is_tile_loop(*outer, {})) vars.insert(outer->var);
  for (const Update &update : loop.updates) {
    std::string ijk[3];
    if (vars.size() < 3 || !assign_ijk(update, vars, ijk)) continue;
    std::string letters;
    for (const Loop *outer : stack)
      for (int n = 0; n < 3; ++n)
        if (outer->var == ijk[n] && letters.find("ijk"[n]) == std::string::npos)
          letters += "ijk"[n];
    if (letters.size() != 3) continue;
    order = letters;
    if (line != nullptr) *line = update.line;
    return true;
  }
  for (const Loop &inner : loop.inner)
    if (order_in(inner, stack, order, line)) return true;
  stack.pop_back();
  return false;
}

}  // namespace

BlockingFacts find_blocking(const std::vector<Loop> &loops, const Functions &functions) {
  std::vector<const Loop *> best;
  for (const Loop &loop : loops) {
    std::vector<const Loop *> path = most_tiled_path(loop, functions);
    if (path.size() > best.size()) best = std::move(path);
  }
  BlockingFacts facts;
  facts.blocking = !best.empty();
  for (const Loop *tile : best) {
    if (tile->step > 1) facts.tile_sizes.push_back(static_cast<int>(tile->step));
    if (!facts.evidence.empty()) facts.evidence += ", ";
    facts.evidence += "tile loop over " + tile->var + " at line " + std::to_string(tile->line);
  }
  return facts;
}

std::string find_loop_order(const std::vector<Loop> &loops, unsigned *line) {
  std::string order;
  for (const Loop &loop : loops) {
    std::vector<const Loop *> stack;
    if (order_in(loop, stack, order, line)) return order;
  }
  return {};
}

namespace {

// An integer range a (sub)expression's value lies in; nullopt: not understood.
struct Range {
  long double lo, hi;
};
using Value = std::optional<Range>;

// Recursive descent over the tokens, C's precedence; a boolean is a range within [0, 1].
class ConditionEval {
 public:
  ConditionEval(const std::vector<std::string> &tokens, const std::set<std::string> &dimensions,
                const std::map<std::string, long> &constants)
      : tokens_(tokens), dimensions_(dimensions), constants_(constants) {}

  Value whole() {
    Value value = logical_or();
    return at_end() ? value : std::nullopt;
  }

 private:
  bool at_end() const { return pos_ >= tokens_.size(); }
  bool take(const char *token) {
    if (at_end() || tokens_[pos_] != token) return false;
    ++pos_;
    return true;
  }
  static Value checked(Range r) {  // beyond an int (or NaN): C would overflow or convert; give up
    if (!(r.lo >= INT_MIN && r.hi <= INT_MAX)) return std::nullopt;
    return r;
  }
  static Range boolean(bool can_be_false, bool can_be_true) {
    return {can_be_false ? 0.0L : 1.0L, can_be_true ? 1.0L : 0.0L};
  }
  static bool can_be_zero(Range r) { return r.lo <= 0 && r.hi >= 0; }
  static bool can_be_nonzero(Range r) { return r.lo != 0 || r.hi != 0; }

  Value logical_or() {
    Value left = logical_and();
    while (left && take("||")) {
      Value right = logical_and();
      if (!right) return std::nullopt;
      left = boolean(can_be_zero(*left) && can_be_zero(*right), can_be_nonzero(*left) || can_be_nonzero(*right));
    }
    return left;
  }
  Value logical_and() {
    Value left = equality();
    while (left && take("&&")) {
      Value right = equality();
      if (!right) return std::nullopt;
      left = boolean(can_be_zero(*left) || can_be_zero(*right), can_be_nonzero(*left) && can_be_nonzero(*right));
    }
    return left;
  }
  Value equality() {
    Value left = relational();
    while (left) {
      const bool equal = take("==");
      if (!equal && !take("!=")) break;
      Value right = relational();
      if (!right) return std::nullopt;
      const bool may_meet = left->lo <= right->hi && right->lo <= left->hi;
      const bool must_meet = left->lo == left->hi && right->lo == right->hi && left->lo == right->lo;
      left = equal ? boolean(!must_meet, may_meet) : boolean(may_meet, !must_meet);
    }
    return left;
  }
  Value relational() {
    Value left = additive();
    while (left) {
      std::string op;
      for (const char *candidate : {"<=", ">=", "<", ">"})
        if (take(candidate)) {
          op = candidate;
          break;
        }
      if (op.empty()) break;
      Value right = additive();
      if (!right) return std::nullopt;
      Range a = *left, b = *right;
      if (op == ">" || op == ">=") std::swap(a, b);  // a > b is b < a
      const bool strict = op == "<" || op == ">";
      const bool always = strict ? a.hi < b.lo : a.hi <= b.lo;
      const bool never = strict ? a.lo >= b.hi : a.lo > b.hi;
      left = boolean(!always, !never);
    }
    return left;
  }
  Value additive() {
    Value left = multiplicative();
    while (left) {
      const bool plus = take("+");
      if (!plus && !take("-")) break;
      Value right = multiplicative();
      if (!right) return std::nullopt;
      left = checked(plus ? Range{left->lo + right->lo, left->hi + right->hi}
                          : Range{left->lo - right->hi, left->hi - right->lo});
    }
    return left;
  }
  Value multiplicative() {
    Value left = unary();
    while (left && take("*")) {
      Value right = unary();
      if (!right) return std::nullopt;
      const long double p[4] = {left->lo * right->lo, left->lo * right->hi, left->hi * right->lo,
                                left->hi * right->hi};
      left = checked({*std::min_element(p, p + 4), *std::max_element(p, p + 4)});
    }
    return left;
  }
  Value unary() {
    if (take("-")) {
      Value v = unary();
      return v ? checked({-v->hi, -v->lo}) : std::nullopt;
    }
    if (take("+")) return unary();
    if (take("!")) {
      Value v = unary();
      return v ? std::optional(boolean(can_be_nonzero(*v), can_be_zero(*v))) : std::nullopt;
    }
    return primary();
  }
  Value primary() {
    if (take("(")) {
      Value v = logical_or();
      return v && take(")") ? v : std::nullopt;
    }
    if (at_end()) return std::nullopt;
    const std::string &token = tokens_[pos_++];
    if (dimensions_.count(token) != 0) return Range{1, static_cast<long double>(kMaxDimension)};
    if (const auto known = constants_.find(token); known != constants_.end())
      return checked({static_cast<long double>(known->second), static_cast<long double>(known->second)});
    if (token.empty()) return std::nullopt;
    if (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_')  // any other name: any value
      return Range{-std::numeric_limits<long double>::infinity(), std::numeric_limits<long double>::infinity()};
    if (!std::isdigit(static_cast<unsigned char>(token[0]))) return std::nullopt;
    char *end = nullptr;
    const long value = std::strtol(token.c_str(), &end, 0);
    for (; *end != '\0'; ++end)
      if (std::string("uUlL").find(*end) == std::string::npos) return std::nullopt;
    return checked({static_cast<long double>(value), static_cast<long double>(value)});
  }

  const std::vector<std::string> &tokens_;
  const std::set<std::string> &dimensions_;
  const std::map<std::string, long> &constants_;
  std::size_t pos_ = 0;
};

}  // namespace

Truth condition_truth(const std::vector<std::string> &tokens, const std::set<std::string> &dimensions,
                      const std::map<std::string, long> &constants) {
  if (tokens.empty()) return Truth::unknown;
  const Value value = ConditionEval(tokens, dimensions, constants).whole();
  if (!value) return Truth::unknown;
  if (value->lo == 0 && value->hi == 0) return Truth::never;
  if (value->lo > 0 || value->hi < 0) return Truth::always;
  return Truth::unknown;
}

std::set<std::string> reachable_functions(const Functions &functions, const std::string &entry) {
  std::set<std::string> reached;
  if (functions.count(entry) == 0) {
    for (const auto &[name, function] : functions) reached.insert(name);
    return reached;
  }
  std::vector<std::string> pending = {entry};
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    const auto it = functions.find(name);
    if (it == functions.end() || !reached.insert(name).second) continue;
    for (const std::string &callee : it->second.callees) pending.push_back(callee);
  }
  return reached;
}

}  // namespace hpcreward::techniques
