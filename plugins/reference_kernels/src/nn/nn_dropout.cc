// Dropout (opsets 1-13). In inference (before opset 12 always; from opset 12 unless the
// training_mode input is true, read at launch) the output is the input and the optional
// mask is all true (ones in X's type before opset 10).
// In training mode with ratio r (input, default 0.5) an element is kept when a uniform
// draw u in [0, 1) has u >= r, and scaled by 1 / (1 - r). The draws are numpy's: a
// Mersenne Twister seeded like np.random.seed(seed) (std::mt19937 seeds the same way),
// two 32-bit outputs per double ((a >> 5) * 2^26 + (b >> 6)) / 2^53, in element order,
// so a node with a `seed` attribute gives the masks of the ONNX reference
// (np.random.seed(seed); np.random.uniform(0, 1, shape) >= r) at every launch. Without
// a seed each launch draws from a fresh seed (a random start, then counting up).

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct DropoutParams {
  int64_t count = 0;
  int ratio_input = -1, training_input = -1;  // opset >= 12
  DataType ratio_dtype = DataType::kUndefined;
  bool has_mask = false;
  DataType mask_dtype = DataType::kBool;
  bool seeded = false;
  uint32_t seed = 0;
  // Unseeded draws: the seed of the next launch (shared by concurrent launches).
  std::shared_ptr<std::atomic<uint32_t>> next_seed;
};

double next_uniform(std::mt19937& engine) {
  const uint32_t a = engine() >> 5, b = engine() >> 6;
  return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) / 9007199254740992.0;
}

template <typename T>
void write_mask_element(void* mask, DataType dtype, int64_t index, bool keep) {
  if (dtype == DataType::kBool) {
    static_cast<bool*>(mask)[index] = keep;
  } else {
    static_cast<T*>(mask)[index] = store<T>(keep ? 1.0 : 0.0);
  }
}

template <typename T>
int dropout_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const DropoutParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  void* mask = p.has_mask ? args.outputs[1] : nullptr;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  bool training = false;
  double ratio = 0.5;
  if (p.training_input >= 0) {
    const void* flag = args.inputs[p.training_input];
    if (flag == nullptr) return kKernelMissingAddress;
    training = *static_cast<const bool*>(flag);
  }
  if (training && p.ratio_input >= 0) {
    const void* value = args.inputs[p.ratio_input];
    if (value == nullptr) return kKernelMissingAddress;
    ratio = nn::load_as_double(value, p.ratio_dtype, 0);
  }
  if (!training || ratio == 0.0) {
    if (y != x) std::memmove(y, x, static_cast<size_t>(p.count) * sizeof(T));
    if (mask != nullptr) {
      for (int64_t i = 0; i < p.count; ++i) write_mask_element<T>(mask, p.mask_dtype, i, true);
    }
    return kKernelOk;
  }
  const uint32_t seed = p.seeded ? p.seed : p.next_seed->fetch_add(1);
  std::mt19937 engine(seed);
  const double scale = ratio < 1.0 ? 1.0 / (1.0 - ratio) : 0.0;
  for (int64_t i = 0; i < p.count; ++i) {
    const bool keep = next_uniform(engine) >= ratio;
    y[i] = keep ? store<T>(load(x[i]) * scale) : store<T>(0.0);
    if (mask != nullptr) write_mask_element<T>(mask, p.mask_dtype, i, keep);
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_dropout(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  DropoutParams p;
  p.count = product(x_dims);
  if (context.opset >= 12) {
    if (has_input(context, 1)) {
      p.ratio_input = 1;
      p.ratio_dtype = input_dtype(context, 1);
      if (!nn::is_floating_dtype(p.ratio_dtype)) {
        return invalid_node(context, "input 'ratio' must be floating point, got " +
                                         std::string(data_type_name(p.ratio_dtype)));
      }
    }
    if (has_input(context, 2)) {
      p.training_input = 2;
      GE_RETURN_IF_ERROR(check_input_dtype(context, 2, DataType::kBool));
    }
  }
  if (has_output(context, 1)) {
    p.has_mask = true;
    p.mask_dtype = context.node.output(1)->desc().dtype;
    if (p.mask_dtype != DataType::kBool && p.mask_dtype != dtype) {
      return invalid_node(context, "output 'mask' must be bool (or X's dtype before opset 10), got " +
                                       std::string(data_type_name(p.mask_dtype)));
    }
    GE_RETURN_IF_ERROR(check_output(context, 1, p.mask_dtype, x_dims));
  }
  if (context.node.has_attribute("seed")) {
    const Attribute* attribute = context.node.attribute("seed");
    // The spec's seed is an int; some exporters write a float.
    const int64_t seed = attribute->holds<float>() ? static_cast<int64_t>(attribute->get<float>())
                                                    : context.node.get_int("seed", 0);
    p.seeded = true;
    p.seed = static_cast<uint32_t>(seed);  // numpy takes the low 32 bits' range
  } else {
    p.next_seed = std::make_shared<std::atomic<uint32_t>>(std::random_device{}());
  }
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &dropout_kernel<T>; });
  return make_kernel(context, function, std::move(p));
}

}  // namespace

void add_nn_dropout_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Dropout", data_types(nn::FloatingTypes{}), &prepare_dropout});
}

}  // namespace ge::reference_kernels
