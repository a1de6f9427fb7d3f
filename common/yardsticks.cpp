#include "common/yardsticks.hpp"

#include <algorithm>

namespace hpcreward {

double Yardsticks::best() const { return std::max({openblas, cublas, cublaslt}); }

std::optional<double> Yardsticks::named(std::string_view name) const {
  if (name == "openblas") return openblas;
  if (name == "cublas") return cublas;
  if (name == "cublaslt") return cublaslt;
  return std::nullopt;
}

std::string yardstick_names() { return "openblas, cublas, cublaslt"; }

}  // namespace hpcreward
