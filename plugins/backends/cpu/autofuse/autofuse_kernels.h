#pragma once
/// The cpu backend's fast path for ge_autofuse.Fused: the group's generated kernel,
/// compiled online (autofuse_compiler.h). When the node asks for interpretation
/// (attribute `mode` = "interpret", or GE_AUTOFUSE_MODE=interpret) or no kernel can be
/// compiled, there is none and the reference library's interpreter runs the node; one
/// log line says why.

#include <optional>
#include <string_view>

#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"

namespace ge::cpu_autofuse {

/// The compiled kernel of `node` (a valid ge_autofuse.Fused node with static descs), or
/// nullopt: also when `mode` (the backend's `autofuse_mode` setting; empty: the node's
/// own `mode` attribute) is not "codegen". Never throws except std::bad_alloc.
/// `vector_math` off gives results equal to the interpreter's bit for bit (autofuse_codegen.h).
std::optional<PreparedKernel> prepare(const Node& node, std::string_view backend_name, int threads,
                                      std::string_view mode = {}, bool vector_math = true);

}  // namespace ge::cpu_autofuse
