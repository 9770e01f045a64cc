// ge_sample.Swish: y = x * sigmoid(beta * x), float32, with attribute `beta` (default 1).
// One op_library plugin gives GE both halves of a custom op: the schema with its shape
// inference (an OpLibrary) and the cpu kernel (a KernelLibrary for backend "cpu").
#include <cmath>
#include <memory>

#include "ge/plugin_api/plugin.h"

namespace {

constexpr const char* kDomain = "ge_sample";

bool is_swish(const ge::Node& node) { return node.domain() == kDomain && node.op_type() == "Swish"; }

class SwishSchema final : public ge::OpLibrary {
 public:
  std::string name() const override { return "ge_sample_ops"; }
  const ge::OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type,
                                      int64_t opset_version) const override {
    static const ge::OpSchemaInfo swish{kDomain, "Swish", 1, 1, 1, 1, 1, ge::FusionKind::kElementwise};
    return domain == kDomain && op_type == "Swish" && opset_version >= 1 ? &swish : nullptr;
  }
  ge::Status infer(ge::Node& node, int64_t, const ge::InputDataProvider&, const ge::OpRegistry&) const override {
    const ge::TensorDesc& x = node.input(0)->desc();
    if (x.dtype != ge::DataType::kFloat32) {
      return ge::invalid_argument(node.describe() + ": input X is " + x.to_string() + ", Swish takes float32");
    }
    node.output(0)->set_desc(x);  // same type and shape, symbolic dims included
    return ge::Status::ok();
  }
};

struct SwishParams {
  int64_t count;
  float beta;
};

int swish_kernel(const ge::KernelArgs& args) {
  const auto& p = *static_cast<const SwishParams*>(args.params);
  const auto* x = static_cast<const float*>(args.inputs[0]);
  auto* y = static_cast<float*>(args.outputs[0]);
  for (int64_t i = 0; i < p.count; ++i) y[i] = x[i] / (1.0f + std::exp(-p.beta * x[i]));
  return 0;
}

class SwishCpuKernels final : public ge::KernelLibrary {
 public:
  std::string name() const override { return "ge_sample_cpu_kernels"; }
  std::string backend() const override { return "cpu"; }
  bool supports(const ge::Node& node) const override {
    return is_swish(node) && node.input(0)->desc().dtype == ge::DataType::kFloat32;
  }
  ge::Result<ge::PreparedKernel> prepare(const ge::Node& node) const override {
    ge::PreparedKernel kernel;
    kernel.function = swish_kernel;
    kernel.params = std::make_shared<SwishParams>(
        SwishParams{node.output(0)->desc().element_count(), node.get_float("beta", 1.0f)});
    kernel.name = "ge_sample.Swish";
    return kernel;
  }
};

ge::Status register_swish(ge::Registrar& registrar) {
  GE_RETURN_IF_ERROR(registrar.add_op_library(std::make_shared<SwishSchema>()));
  return registrar.add_kernel_library(std::make_shared<SwishCpuKernels>());
}

}  // namespace

GE_DEFINE_PLUGIN("sample_swish", "1.0.0", register_swish)
