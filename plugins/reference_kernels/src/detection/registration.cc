// The detection family: object detection: box suppression and region pooling.
#include "detection/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_detection_family_kernels(std::vector<OpKernel>& table) {
  special::add_non_max_suppression_kernels(table);
  add_nn_roi_align_kernels(table);
  add_nn_max_roi_pool_kernels(table);
}

}  // namespace ge::reference_kernels
