// libFuzzer target: ge-run's input readers (.npy, ONNX TensorProto .pb and .npz) must reject
// any byte string with a Status, never crash, hang or allocate more than the input
// justifies. The first byte picks the reader (modulo 3: 0 .npy, 1 .pb, 2 .npz); the rest is
// the file. A .npz is opened under a 64 MiB memory limit: its declared sizes are checked
// before anything is inflated (issue 36 item 6).
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ge/onnx_common/tensor_proto.h"
#include "npy.h"
#include "npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 3 == 0) {
    ge::Result<ge::Tensor> tensor = ge::tools::parse_npy(bytes, "fuzz.npy");
    if (tensor.is_ok()) (void)tensor->to_string();
    return 0;
  }
  if (data[0] % 3 == 2) {
    ge::Result<ge::tools::NpzArchive> archive = ge::tools::NpzArchive::parse(std::string(bytes), "fuzz.npz", 64 << 20);
    if (!archive.is_ok()) return 0;
    for (size_t i = 0; i < archive->arrays().size(); ++i) {
      ge::Result<ge::Tensor> tensor = archive->load(i);
      if (tensor.is_ok()) (void)tensor->to_string();
    }
    return 0;
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return 0;
  // No base folder: external data is refused rather than read from the fuzzing host.
  ge::Result<ge::Tensor> tensor = ge::onnx_common::tensor_from_proto(proto, {});
  if (tensor.is_ok()) (void)tensor->to_string();
  return 0;
}
