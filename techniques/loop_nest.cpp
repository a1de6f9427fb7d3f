#include "techniques/loop_nest.hpp"

#include <algorithm>
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

// A call in `loop`'s body (at any depth) passes a block name to a parameter that a loop of the
// callee runs over.
bool callee_runs_over(const Loop &loop, const std::set<std::string> &block, const Loop &tile,
                      const Functions &functions) {
  for (const Call &call : loop.calls) {
    const auto callee = functions.find(call.callee);
    if (callee == functions.end()) continue;
    const Function &function = callee->second;
    for (std::size_t a = 0; a < call.arguments.size() && a < function.parameters.size(); ++a)
      if (mentions(call.arguments[a], block) && loop_over(function.loops, {function.parameters[a]}, tile))
        return true;
  }
  for (const Loop &inner : loop.inner)
    if (callee_runs_over(inner, block, tile, functions)) return true;
  return false;
}

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
  return loop_over(loop.inner, derived, loop) || callee_runs_over(loop, block, loop, functions);
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

}  // namespace hpcreward::techniques
