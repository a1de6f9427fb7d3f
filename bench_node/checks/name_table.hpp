#pragma once
// The tables the checks judge names by: headers, pragmas, attributes, imported symbols,
// libraries. Each language (C, CUDA) writes its own tables (the *_policy files); the rules
// that read them (the *_rules files) are the same for both. An entry is an exact name or, when
// it ends in '*', every name that begins with the rest ("cublas*": cublas_v2.h, cublasLt.h).
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

// A name refused with a reason of its own, beyond not being on the allow-list.
struct RefusedName {
  std::string_view pattern;
  std::string_view reason;  // "cuBLAS: the multiplication must be the candidate's own kernels"
};

struct NameTable {
  std::vector<std::string_view> allowed;
  std::vector<RefusedName> refused;  // read first: a name both lists match is refused
};

bool name_matches(std::string_view pattern, std::string_view name);

// The reason of the first refused entry that matches `name`; nullopt when none does.
std::optional<std::string_view> refusal_reason(const NameTable &table, std::string_view name);

// Whether an allowed entry matches `name` (ask refusal_reason first).
bool allowed_name(const NameTable &table, std::string_view name);

// The allowed entries for a reason: "omp, STDC, once".
std::string allowed_names_text(const NameTable &table);

// Several lists as one, for a table built of parts (CUDA's attributes: C's and its own).
template <typename T>
std::vector<T> joined(std::initializer_list<std::span<const T>> parts) {
  std::vector<T> all;
  for (std::span<const T> part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace hpcreward
