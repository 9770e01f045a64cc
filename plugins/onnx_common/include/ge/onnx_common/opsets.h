#pragma once
/// The ONNX opsets GE's ONNX plugins accept, shared by the parser (which refuses newer
/// imports) and the op library (which serves their schemas).

#include <cstdint>

namespace ge::onnx_common {

/// The newest ai.onnx opset: ONNX 1.18's. Debian's libonnx 1.12 knows opsets up to 17;
/// the op library adds the versions of 18 to 23 (plugins/ops/onnx/newer_opsets.h).
constexpr int64_t kNewestOnnxOpset = 23;

}  // namespace ge::onnx_common
