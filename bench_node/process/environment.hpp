#pragma once
// Environment lists for child processes (built in the parent, before fork) and PATH lookup.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

using Environment = std::vector<std::string>;  // "NAME=value" entries

Environment inherited_environment();
std::optional<std::string> get_variable(const Environment &environment, std::string_view name);
// Sets NAME=value, replacing an existing entry only when `overwrite`.
void set_variable(Environment &environment, std::string_view name, std::string_view value,
                  bool overwrite = true);

// The executable `program` resolves to: itself when it holds a '/', else the first match on
// PATH. nullopt when there is none that can be executed.
std::optional<std::string> find_executable(const std::string &program);

}  // namespace hpcreward
