// The fusion pass plugin: the built-in fusions, each an ordinary PatternFusionPass, all in
// phase fuse but fuse_qdq (phase fold, before constant_folding: qdq_fusion.h). -O2 runs
// those that produce standard ONNX ops, -O3 adds those that produce "ge" domain ops (which
// need the ge_fused op library and a backend that runs them). The -O2 fusions that build
// an op the model's opset lacks (LayerNormalization before 17, HardSwish before 14) build
// its ge-domain copy instead, from -O3 only (fusion_util.h).
// They run in the order they are registered below (a phase's ties run in registration
// order), all before autofusion, which would otherwise take the elementwise chains they
// look for. Options "<pass>.min_opt_level", "<pass>.phase", "<pass>.after" and
// "<pass>.before" (quoted TOML keys) override a pass's defaults
// (ge/plugin_api/pass_options.h).
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "activation_fusion.h"
#include "bias_add_fusion.h"
#include "conv_bn_fusion.h"
#include "conv_residual_fusion.h"
#include "einsum_to_matmul.h"
#include "pad_fusion.h"
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"
#include "gelu_fusion.h"
#include "hard_swish_fusion.h"
#include "layer_norm_fusion.h"
#include "matmul_add_fusion.h"
#include "matmul_bias_fusion.h"
#include "qdq_fusion.h"
#include "reduce_then_matmul.h"
#include "scatter_rows_fusion.h"
#include "softmax_fusion.h"

namespace {

/// Registers PassType in `phase` (fuse unless given), before autofusion and the passes in
/// `before`, after those in `after`.
template <typename PassType>
ge::Status add(ge::Registrar& registrar, std::vector<std::string>& known, int min_opt_level,
               std::vector<std::string> before = {}, ge::PassPhase phase = ge::PassPhase::kFuse,
               std::vector<std::string> after = {}) {
  ge::PassInfo info;
  info.name = PassType().name();
  info.min_opt_level = min_opt_level;
  info.phase = phase;
  info.run_after = std::move(after);
  info.run_before = std::move(before);
  info.run_before.push_back("autofusion");
  info.create = [] { return std::make_unique<PassType>(); };
  const std::string prefix = info.name + ".";
  for (std::string& key : ge::pass_option_keys(prefix)) known.push_back(std::move(key));
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options(), prefix));
  return registrar.add_pass(std::move(info));
}

ge::Status register_fusions(ge::Registrar& registrar) {
  try {
    using namespace ge::fusion;
    std::vector<std::string> known;  // every pass's "<pass>.<option>" keys
    // In phase fold, before constant_folding folds DequantizeLinear(weights) into floats.
    GE_RETURN_IF_ERROR(add<QdqFusion>(registrar, known, 2, {"constant_folding"}, ge::PassPhase::kFold));
    // Canonical first: the MatMul fusions below then take the products Einsums wrote.
    GE_RETURN_IF_ERROR(add<EinsumToMatMul>(registrar, known, 2, {}, ge::PassPhase::kCanonicalize,
                                           {"noop_elimination", "widen_half_precision"}));
    GE_RETURN_IF_ERROR(add<PadFusion>(registrar, known, 2));
    GE_RETURN_IF_ERROR(add<BiasAddFusion>(registrar, known, 2));
    GE_RETURN_IF_ERROR(add<ConvBatchNormFusion>(registrar, known, 2));
    GE_RETURN_IF_ERROR(add<MatMulAddFusion>(registrar, known, 2));
    // Before fuse_activation and fuse_matmul_bias take the MatMul into a ge::FusedMatMul.
    GE_RETURN_IF_ERROR(add<ReduceMatMulReorder>(registrar, known, 2, {"fuse_activation", "fuse_matmul_bias"}));
    GE_RETURN_IF_ERROR(add<LayerNormFusion>(registrar, known, 2));
    GE_RETURN_IF_ERROR(add<SoftmaxFusion>(registrar, known, 2));
    // fuse_activation would take the HardSwish into a Conv / Gemm / MatMul.
    GE_RETURN_IF_ERROR(add<HardSwishFusion>(registrar, known, 2, {"fuse_activation"}));
    GE_RETURN_IF_ERROR(add<GeluFusion>(registrar, known, 3));
    GE_RETURN_IF_ERROR(add<MatMulBiasFusion>(registrar, known, 3));
    GE_RETURN_IF_ERROR(add<ConvResidualFusion>(registrar, known, 3));
    GE_RETURN_IF_ERROR(add<ActivationFusion>(registrar, known, 3));
    GE_RETURN_IF_ERROR(add<ScatterRowsFusion>(registrar, known, 3));
    return registrar.options().check_known_keys("plugin 'fusion'", known);
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("fusion passes: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("fusion", "0.1.0", register_fusions)
