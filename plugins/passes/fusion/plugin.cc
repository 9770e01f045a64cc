// The fusion pass plugin: the built-in fusions, each an ordinary PatternFusionPass.
// -O2 runs those that produce standard ONNX ops, -O3 adds those that produce "ge" domain
// ops (which need the ge_fused op library and a backend that runs them). The -O2 fusions
// that build an op the model's opset lacks (LayerNormalization before 17, HardSwish
// before 14) build its ge-domain copy instead, from -O3 only (fusion_util.h). Options
// "<pass>.min_opt_level" and "<pass>.order" override the defaults below.
#include <exception>
#include <functional>

#include "activation_fusion.h"
#include "bias_add_fusion.h"
#include "conv_bn_fusion.h"
#include "conv_residual_fusion.h"
#include "ge/plugin_api/plugin.h"
#include "gelu_fusion.h"
#include "hard_swish_fusion.h"
#include "layer_norm_fusion.h"
#include "matmul_add_fusion.h"
#include "matmul_bias_fusion.h"
#include "softmax_fusion.h"

namespace {

template <typename PassType>
ge::Status add(ge::Registrar& registrar, int min_opt_level, int order) {
  ge::PassInfo info;
  info.name = PassType().name();
  info.min_opt_level = static_cast<int>(registrar.options().get_int(info.name + ".min_opt_level", min_opt_level));
  info.order = static_cast<int>(registrar.options().get_int(info.name + ".order", order));
  info.create = [] { return std::make_unique<PassType>(); };
  return registrar.add_pass(std::move(info));
}

ge::Status register_fusions(ge::Registrar& registrar) {
  try {
    using namespace ge::fusion;
    GE_RETURN_IF_ERROR(add<BiasAddFusion>(registrar, 2, 400));
    GE_RETURN_IF_ERROR(add<ConvBatchNormFusion>(registrar, 2, 410));
    GE_RETURN_IF_ERROR(add<MatMulAddFusion>(registrar, 2, 420));
    GE_RETURN_IF_ERROR(add<LayerNormFusion>(registrar, 2, 430));
    GE_RETURN_IF_ERROR(add<SoftmaxFusion>(registrar, 2, 440));
    // Before fuse_activation, which takes the HardSwish into a Conv / Gemm / MatMul.
    GE_RETURN_IF_ERROR(add<HardSwishFusion>(registrar, 2, 450));
    GE_RETURN_IF_ERROR(add<GeluFusion>(registrar, 3, 500));
    GE_RETURN_IF_ERROR(add<MatMulBiasFusion>(registrar, 3, 510));
    GE_RETURN_IF_ERROR(add<ConvResidualFusion>(registrar, 3, 515));
    GE_RETURN_IF_ERROR(add<ActivationFusion>(registrar, 3, 520));
    return ge::Status::ok();
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("fusion passes: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("fusion", "0.1.0", register_fusions)
