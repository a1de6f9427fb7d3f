#pragma once
// prompts/default_prompt.txt, compiled in (builtin_prompt.cpp.in).
#include <string_view>

namespace hpcreward::prompts {

std::string_view builtin_prompt_template();

}  // namespace hpcreward::prompts
