// The CUDA checks' normwise error with every element weighed by its own scale:
//   sqrt( sum_ij (e_ij / s_ij)^2 / sum_ij (r_ij / s_ij)^2 ),  s_ij = (|A||B|)_ij,
// e = C - C_ref, r = C_ref. The f32 problems' elements span up to 2^+-100 (input_values.hpp),
// so an unweighted ||e||_F / ||r||_F is the relative error of the one or two largest
// elements: heavy-tailed wherever such an element's dot product happens to cancel, so that an
// honest TF32 product failed about one check in 200 at 31 x 17 x 23, and a bf16 one passed a
// third to a half of them (simulated). Weighed, every element counts alike and the figure
// concentrates (TF32 about 2.6e-4 and bf16 about 2.1e-3 at every shape): scaled_normwise_test.cpp.
#pragma once

#include "bench_node/measure/host_device.hpp"

namespace hpcreward {

struct NormwiseTerms {
  double error_sq = 0;  // (e_ij / s_ij)^2
  double ref_sq = 0;    // (r_ij / s_ij)^2
};

// One element's terms. A zero scale (an all-zero row of A or column of B) has C_ref = 0 and no
// scale to weigh by: the plain squares, which an honest product leaves at zero.
HPCREWARD_HOST_DEVICE inline NormwiseTerms scaled_normwise_terms(double value, double reference, double scale) {
  const double weight = scale > 0 ? 1 / scale : 1;
  const double error = (value - reference) * weight, ref = reference * weight;
  return {error * error, ref * ref};
}

}  // namespace hpcreward
