#pragma once
// The built-in problem catalogs (common/problems/*.json) compiled into the programs, so a run
// needs no file beside the executables.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

std::optional<std::string_view> builtin_catalog_json(std::string_view name);
std::vector<std::string> builtin_catalog_names();

}  // namespace hpcreward
