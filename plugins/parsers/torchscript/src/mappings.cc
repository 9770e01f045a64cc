#include "importer.h"
#include "mapping_util.h"

namespace ge::torchscript {

const MappingTable& mappings() {
  static const MappingTable table = [] {
    MappingTable t;
    add_nn_mappings(t);
    add_elementwise_mappings(t);
    add_shape_mappings(t);
    add_transformer_mappings(t);
    return t;
  }();
  return table;
}

namespace {

c10::IValue example_value(const Importer& im, const jit::Node* node, size_t i) {
  if (im.is_tensor_input(node, i)) return im.input_example(node, i);
  return im.constant(node, i);
}

}  // namespace

DataType promoted_dtype(const Importer& im, const jit::Node* node, size_t a, size_t b) {
  const c10::IValue x = example_value(im, node, a);
  const c10::IValue y = example_value(im, node, b);
  c10::ScalarType type;
  if (x.isTensor() && y.isTensor()) {
    type = at::result_type(x.toTensor(), y.toTensor());
  } else if (x.isTensor()) {
    type = at::result_type(x.toTensor(), y.toScalar());
  } else if (y.isTensor()) {
    type = at::result_type(y.toTensor(), x.toScalar());
  } else {
    type = at::result_type(x.toScalar(), y.toScalar());
  }
  return to_data_type(type);
}

Value* operand(Importer& im, const jit::Node* node, size_t i, DataType dtype) {
  if (!im.is_tensor_input(node, i)) return im.tensor(node, i, dtype);
  Value* v = im.tensor(node, i);
  return im.cast_to(v, to_data_type(im.input_example(node, i).scalar_type()), dtype);
}

}  // namespace ge::torchscript
