#include "bench_node/cpu/operands.hpp"

#include <cstring>
#include <limits>

#include "bench_node/cpu/gemm_check.hpp"

namespace hpcreward {

namespace {

std::size_t elements(int rows, int columns) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns);
}

}  // namespace

template <typename T>
Operands<T>::Operands(const Shape &shape, OperandMemory &memory)
    : shape_(shape),
      a_(elements(shape.m, shape.k) * sizeof(T), memory),
      b_(elements(shape.k, shape.n) * sizeof(T), memory),
      c_(elements(shape.m, shape.n) * sizeof(T), memory),
      a_copy_(elements(shape.m, shape.k)),
      b_copy_(elements(shape.k, shape.n)) {}

template <typename T>
std::size_t Operands<T>::memory_bytes(const Shape &shape) {
  return GuardedBuffer::block_bytes(elements(shape.m, shape.k) * sizeof(T)) +
         GuardedBuffer::block_bytes(elements(shape.k, shape.n) * sizeof(T)) +
         GuardedBuffer::block_bytes(elements(shape.m, shape.n) * sizeof(T));
}

template <typename T>
void Operands<T>::refill(Rng &rng) {
  fill_uniform(std::span<T>(a_copy_), rng);
  fill_uniform(std::span<T>(b_copy_), rng);
  std::memcpy(a_.data(), a_copy_.data(), a_copy_.size() * sizeof(T));
  std::memcpy(b_.data(), b_copy_.data(), b_copy_.size() * sizeof(T));
  norm_a_ = frobenius_norm(std::span<const T>(a_copy_));
  norm_b_ = frobenius_norm(std::span<const T>(b_copy_));
  poison_output();
}

template <typename T>
void Operands<T>::poison_output() {
  for (T &value : c_.as<T>()) value = std::numeric_limits<T>::quiet_NaN();
}

template <typename T>
Verdict Operands<T>::check_memory(const std::string &where) const {
  const char *names[] = {"A", "B", "C"};
  const GuardedBuffer *buffers[] = {&a_, &b_, &c_};
  for (int i = 0; i < 3; ++i)
    if (!buffers[i]->guards_intact())
      return {Status::runtime_error,
              std::string("wrote outside its output (guard zone around ") + names[i] +
                  " overwritten) " + where};
  if (std::memcmp(a_.data(), a_copy_.data(), a_copy_.size() * sizeof(T)) != 0)
    return {Status::wrong_answer, "inputs modified (A changed) " + where};
  if (std::memcmp(b_.data(), b_copy_.data(), b_copy_.size() * sizeof(T)) != 0)
    return {Status::wrong_answer, "inputs modified (B changed) " + where};
  return {};
}

template class Operands<double>;
template class Operands<float>;

}  // namespace hpcreward
