#include "bench_node/cpu/operands.hpp"

#include <cstring>
#include <limits>

#include "bench_node/cpu/gemm_check.hpp"

namespace hpcreward {

namespace {

std::size_t batches(const Shape &shape) { return static_cast<std::size_t>(shape.batch); }

// Each product's rows x cols matrix in `from` into its cols x rows transpose in `to`.
template <typename T>
void transpose_each(const std::vector<T> &from, std::vector<T> &to, int count, int rows, int cols) {
  const std::size_t size = static_cast<std::size_t>(rows) * cols;
  for (std::size_t b = 0; b < static_cast<std::size_t>(count); ++b)
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
      for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c)
        to[b * size + c * rows + r] = from[b * size + r * cols + c];
}

}  // namespace

template <typename T>
Operands<T>::Operands(const Shape &shape, const Layout &layout, OperandMemory &memory)
    : shape_(shape),
      layout_(layout),
      a_(batches(shape) * a_elements(shape) * sizeof(T), memory),
      b_(batches(shape) * b_elements(shape) * sizeof(T), memory),
      c_(batches(shape) * c_elements(shape) * sizeof(T), memory),
      a_copy_(batches(shape) * a_elements(shape)),
      b_copy_(batches(shape) * b_elements(shape)),
      a_row_major_(layout.transpose_a ? a_copy_.size() : 0),
      b_row_major_(layout.transpose_b ? b_copy_.size() : 0),
      norm_a_(batches(shape)),
      norm_b_(batches(shape)) {}

template <typename T>
std::size_t Operands<T>::memory_bytes(const Shape &shape) {
  return GuardedBuffer::block_bytes(batches(shape) * a_elements(shape) * sizeof(T)) +
         GuardedBuffer::block_bytes(batches(shape) * b_elements(shape) * sizeof(T)) +
         GuardedBuffer::block_bytes(batches(shape) * c_elements(shape) * sizeof(T));
}

template <typename T>
std::span<const T> Operands<T>::a(int batch) const {
  const std::vector<T> &values = layout_.transpose_a ? a_row_major_ : a_copy_;
  return std::span<const T>(values).subspan(batch * a_elements(shape_), a_elements(shape_));
}

template <typename T>
std::span<const T> Operands<T>::b(int batch) const {
  const std::vector<T> &values = layout_.transpose_b ? b_row_major_ : b_copy_;
  return std::span<const T>(values).subspan(batch * b_elements(shape_), b_elements(shape_));
}

template <typename T>
std::span<const T> Operands<T>::c(int batch) {
  return c_.as<const T>().subspan(batch * c_elements(shape_), c_elements(shape_));
}

template <typename T>
void Operands<T>::refill(Rng &rng) {
  fill_uniform(std::span<T>(a_copy_), rng);
  fill_uniform(std::span<T>(b_copy_), rng);
  std::memcpy(a_.data(), a_copy_.data(), a_copy_.size() * sizeof(T));
  std::memcpy(b_.data(), b_copy_.data(), b_copy_.size() * sizeof(T));
  // Given k x m (n x k) where transposed: back to m x k (k x n).
  if (layout_.transpose_a) transpose_each(a_copy_, a_row_major_, shape_.batch, shape_.k, shape_.m);
  if (layout_.transpose_b) transpose_each(b_copy_, b_row_major_, shape_.batch, shape_.n, shape_.k);
  for (int batch = 0; batch < shape_.batch; ++batch) {
    norm_a_[batch] = frobenius_norm(a(batch));
    norm_b_[batch] = frobenius_norm(b(batch));
  }
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
