#include "kernel_cases.h"

#include <algorithm>
#include <sstream>

#include "ge/data_type.h"
#include "ge/tensor_desc.h"
#include "test_data.h"

namespace ge::backend_conformance {
namespace {

/// "float32[4,3]" as a desc (the kit's own literals: always well formed).
TensorDesc desc_of(const std::string& type) {
  const size_t open = type.find('[');
  const DataType dtype = data_type_from_name(type.substr(0, open)).value_or(DataType::kFloat32);
  std::vector<int64_t> dims;
  std::stringstream list(type.substr(open + 1, type.size() - open - 2));
  for (std::string dim; std::getline(list, dim, ',');) dims.push_back(std::stoll(dim));
  return TensorDesc::of(dtype, dims);
}

KernelCase custom(std::string op, std::string label, std::string body, std::vector<RandomConstant> constants = {},
                  std::vector<InputRange> ranges = {}) {
  KernelCase kernel_case;
  kernel_case.op = std::move(op);
  kernel_case.label = std::move(label);
  kernel_case.body = std::move(body);
  kernel_case.constants = std::move(constants);
  kernel_case.ranges = std::move(ranges);
  return kernel_case;
}

KernelCase unary(const std::string& op, const std::string& label, const std::string& shape, double low = -2,
                 double high = 2, const std::string& attributes = "") {
  return custom(op, label,
                "  input %x : float32" + shape + "\n  %y = " + op + "(%x)" +
                    (attributes.empty() ? "" : " " + attributes) + "\n  output %y\n",
                {}, {{"x", low, high}});
}

KernelCase binary(const std::string& op, const std::string& label, const std::string& a, const std::string& b,
                  const std::string& dtype = "float32") {
  return custom(op, label,
                "  input %a : " + dtype + a + "\n  input %b : " + dtype + b + "\n  %y = " + op + "(%a, %b)\n  output %y\n");
}

}  // namespace

std::string KernelCase::graph_text(uint32_t seed) const {
  std::string text = "graph " + op + " (opset \"\"=17) {\n";
  for (const RandomConstant& constant : constants) {
    const Tensor data = random_tensor(desc_of(constant.type), constant.low, constant.high,
                                      seed_for(seed, op + "/" + label + "/" + constant.name));
    text += "  init %" + constant.name + " : " + constant.type + " = " + literal_of(data) + "\n";
  }
  return text + body + "}\n";
}

std::vector<KernelCase> kernel_cases() {
  std::vector<KernelCase> cases = {
      // Elementwise, with and without broadcasting.
      binary("Add", "same shape", "[2,3,4]", "[2,3,4]"),
      binary("Add", "broadcast a row", "[2,3,4]", "[4]"),
      binary("Add", "broadcast both", "[2,1,4]", "[1,3,1]"),
      binary("Add", "int32", "[2,3,4]", "[2,3,4]", "int32"),
      binary("Sub", "broadcast", "[2,3,4]", "[3,4]"),
      binary("Mul", "same shape", "[2,3,4]", "[2,3,4]"),
      binary("Mul", "by one element", "[2,3,4]", "[1]"),
      custom("Div", "divisor away from 0", "  input %a : float32[2,3,4]\n  input %b : float32[2,3,4]\n"
                                     "  %y = Div(%a, %b)\n  output %y\n", {}, {{"b", 0.5, 2}}),
      binary("Max", "broadcast", "[2,3,4]", "[4]"),
      binary("Min", "same shape", "[3,5]", "[3,5]"),
      binary("Greater", "broadcast", "[2,3,4]", "[4]"),
      custom("Where", "broadcast condition",
       "  input %c : bool[3,1]\n  input %a : float32[3,4]\n  input %b : float32[3,4]\n"
       "  %y = Where(%c, %a, %b)\n  output %y\n"),
      unary("Relu", "4-D", "[2,3,4,5]"),
      unary("Sigmoid", "2-D", "[4,16]", -6, 6),
      unary("Tanh", "2-D", "[4,16]", -4, 4),
      unary("Exp", "2-D", "[4,16]", -3, 3),
      unary("Log", "positive", "[4,16]", 0.1, 4),
      unary("Sqrt", "non-negative", "[4,16]", 0, 4),
      unary("Abs", "2-D", "[4,16]"),
      unary("Neg", "2-D", "[4,16]"),
      unary("LeakyRelu", "alpha 0.1", "[4,16]", -2, 2, "{alpha: float = 0.1}"),
      unary("Elu", "alpha 1", "[4,16]"),
      unary("HardSigmoid", "alpha 0.2 beta 0.5", "[4,16]", -4, 4, "{alpha: float = 0.2, beta: float = 0.5}"),
      custom("Clip", "min and max", "  input %x : float32[4,16]\n  init %lo : float32[] = [-0.5]\n"
                              "  init %hi : float32[] = [1.25]\n  %y = Clip(%x, %lo, %hi)\n  output %y\n"),
      custom("Cast", "float32 to int32", "  input %x : float32[4,16]\n  %y = Cast(%x) {to: int = 6}\n  output %y\n", {},
       {{"x", -50, 50}}),
      custom("Cast", "int32 to float32", "  input %x : int32[4,16]\n  %y = Cast(%x) {to: int = 1}\n  output %y\n", {},
       {{"x", -1000, 1000}}),

      // Matrix products.
      binary("MatMul", "2-D", "[4,8]", "[8,5]"),
      binary("MatMul", "batched", "[2,3,4]", "[2,4,5]"),
      binary("MatMul", "broadcast batch", "[2,3,4]", "[4,6]"),
      custom("MatMul", "constant weights", "  input %a : float32[3,16]\n  %y = MatMul(%a, %w)\n  output %y\n",
       {{"w", "float32[16,12]"}}),
      custom("Gemm", "transB, alpha, beta, bias",
       "  input %a : float32[4,8]\n  %y = Gemm(%a, %w, %c) {alpha: float = 0.5, beta: float = 2, transB: int = 1}\n"
       "  output %y\n",
       {{"w", "float32[5,8]"}, {"c", "float32[5]"}}),
      custom("Gemm", "transA, no bias", "  input %a : float32[8,4]\n  input %b : float32[8,3]\n"
                                  "  %y = Gemm(%a, %b) {transA: int = 1}\n  output %y\n"),

      // Convolution and pooling.
      custom("Conv", "3x3, pads 1, bias",
       "  input %x : float32[1,3,8,8]\n  %y = Conv(%x, %w, %b) {pads: ints = [1, 1, 1, 1]}\n  output %y\n",
       {{"w", "float32[4,3,3,3]"}, {"b", "float32[4]"}}),
      custom("Conv", "group 2, strides 2",
       "  input %x : float32[2,4,9,9]\n  %y = Conv(%x, %w) {group: int = 2, strides: ints = [2, 2]}\n  output %y\n",
       {{"w", "float32[6,2,3,3]"}}),
      custom("Conv", "dilations 2, asymmetric pads",
       "  input %x : float32[1,2,7,7]\n"
       "  %y = Conv(%x, %w) {dilations: ints = [2, 2], pads: ints = [1, 0, 2, 1]}\n  output %y\n",
       {{"w", "float32[3,2,3,3]"}}),
      custom("Conv", "1x1", "  input %x : float32[1,8,5,5]\n  %y = Conv(%x, %w, %b)\n  output %y\n",
       {{"w", "float32[16,8,1,1]"}, {"b", "float32[16]"}}),
      custom("Conv", "1-D", "  input %x : float32[2,3,10]\n  %y = Conv(%x, %w) {pads: ints = [1, 1]}\n  output %y\n",
       {{"w", "float32[4,3,3]"}}),
      unary("MaxPool", "2x2, strides 2", "[1,2,8,8]", -2, 2, "{kernel_shape: ints = [2, 2], strides: ints = [2, 2]}"),
      unary("MaxPool", "3x3, pads 1", "[1,2,6,6]", -2, 2, "{kernel_shape: ints = [3, 3], pads: ints = [1, 1, 1, 1]}"),
      unary("MaxPool", "3x3, strides 2, ceil mode", "[1,2,7,7]", -2, 2,
            "{ceil_mode: int = 1, kernel_shape: ints = [3, 3], strides: ints = [2, 2]}"),
      unary("AveragePool", "2x2, strides 2", "[1,2,8,8]", -2, 2,
            "{kernel_shape: ints = [2, 2], strides: ints = [2, 2]}"),
      unary("AveragePool", "3x3, pads 1, excluding pads", "[1,2,6,6]", -2, 2,
            "{kernel_shape: ints = [3, 3], pads: ints = [1, 1, 1, 1]}"),
      unary("AveragePool", "3x3, pads 1, including pads", "[1,2,6,6]", -2, 2,
            "{count_include_pad: int = 1, kernel_shape: ints = [3, 3], pads: ints = [1, 1, 1, 1]}"),
      unary("GlobalAveragePool", "4-D", "[2,3,5,5]"),

      // Normalisation and softmax.
      unary("Softmax", "last axis", "[3,10]", -4, 4, "{axis: int = -1}"),
      unary("Softmax", "middle axis", "[2,3,4]", -4, 4, "{axis: int = 1}"),
      custom("BatchNormalization", "inference",
       "  input %x : float32[2,3,4,4]\n  %y = BatchNormalization(%x, %scale, %bias, %mean, %var) "
       "{epsilon: float = 0.00001}\n  output %y\n",
       {{"scale", "float32[3]"}, {"bias", "float32[3]"}, {"mean", "float32[3]"}, {"var", "float32[3]", 0.5, 2}}),
      custom("LayerNormalization", "last axis",
       "  input %x : float32[2,5,8]\n  %y = LayerNormalization(%x, %scale, %bias) {axis: int = -1}\n  output %y\n",
       {{"scale", "float32[8]"}, {"bias", "float32[8]"}}),
      unary("ReduceMean", "axis 1, keepdims", "[3,4,5]", -2, 2, "{axes: ints = [1]}"),
      unary("ReduceMax", "axes 0 and 2, no keepdims", "[3,4,5]", -2, 2, "{axes: ints = [0, 2], keepdims: int = 0}"),
      custom("ReduceSum", "axes input, no keepdims",
       "  input %x : float32[3,4,5]\n  init %axes : int64[1] = [2]\n"
       "  %y = ReduceSum(%x, %axes) {keepdims: int = 0}\n  output %y\n"),
      unary("ArgMax", "axis 1", "[3,7]", -2, 2, "{axis: int = 1, keepdims: int = 0}"),

      // Layout and indexing.
      unary("Transpose", "swap last two", "[2,3,4]", -2, 2, "{perm: ints = [0, 2, 1]}"),
      unary("Transpose", "4-D", "[2,3,4,5]", -2, 2, "{perm: ints = [3, 1, 0, 2]}"),
      custom("Reshape", "to 2-D", "  input %x : float32[2,3,4]\n  init %shape : int64[2] = [6, 4]\n"
                            "  %y = Reshape(%x, %shape)\n  output %y\n"),
      custom("Reshape", "with 0 and -1", "  input %x : float32[2,3,4]\n  init %shape : int64[3] = [0, -1, 2]\n"
                                   "  %y = Reshape(%x, %shape)\n  output %y\n"),
      unary("Flatten", "axis 1", "[2,3,4,5]", -2, 2, "{axis: int = 1}"),
      unary("Flatten", "axis 2", "[2,3,4,5]", -2, 2, "{axis: int = 2}"),
      custom("Squeeze", "axis 1", "  input %x : float32[3,1,4]\n  init %axes : int64[1] = [1]\n"
                            "  %y = Squeeze(%x, %axes)\n  output %y\n"),
      custom("Unsqueeze", "axes 0 and 3", "  input %x : float32[3,4]\n  init %axes : int64[2] = [0, 3]\n"
                                    "  %y = Unsqueeze(%x, %axes)\n  output %y\n"),
      custom("Concat", "axis 0", "  input %a : float32[2,3]\n  input %b : float32[4,3]\n"
                           "  %y = Concat(%a, %b) {axis: int = 0}\n  output %y\n"),
      custom("Concat", "three inputs, axis 1",
       "  input %a : float32[2,1,4]\n  input %b : float32[2,2,4]\n  input %c : float32[2,3,4]\n"
       "  %y = Concat(%a, %b, %c) {axis: int = 1}\n  output %y\n"),
      custom("Concat", "last axis", "  input %a : float32[3,2]\n  input %b : float32[3,5]\n"
                              "  %y = Concat(%a, %b) {axis: int = -1}\n  output %y\n"),
      custom("Split", "two parts of given sizes",
       "  input %x : float32[6,4]\n  init %split : int64[2] = [2, 4]\n"
       "  %y0, %y1 = Split(%x, %split) {axis: int = 0}\n  output %y0\n  output %y1\n"),
      custom("Split", "three equal parts", "  input %x : float32[2,9]\n"
                                     "  %y0, %y1, %y2 = Split(%x) {axis: int = 1}\n  output %y0\n  output %y1\n"
                                     "  output %y2\n"),
      custom("Slice", "steps 2", "  input %x : float32[6,8]\n  init %starts : int64[2] = [1, 2]\n"
                           "  init %ends : int64[2] = [5, 7]\n  init %axes : int64[2] = [0, 1]\n"
                           "  init %steps : int64[2] = [1, 2]\n  %y = Slice(%x, %starts, %ends, %axes, %steps)\n"
                           "  output %y\n"),
      custom("Slice", "negative step", "  input %x : float32[6,3]\n  init %starts : int64[1] = [-1]\n"
                                 "  init %ends : int64[1] = [-7]\n  init %axes : int64[1] = [0]\n"
                                 "  init %steps : int64[1] = [-1]\n  %y = Slice(%x, %starts, %ends, %axes, %steps)\n"
                                 "  output %y\n"),
      custom("Gather", "axis 0", "  input %x : float32[5,4]\n  init %i : int64[3] = [4, 0, 2]\n"
                           "  %y = Gather(%x, %i) {axis: int = 0}\n  output %y\n"),
      custom("Gather", "axis 1, 2-D and negative indices",
       "  input %x : float32[3,5]\n  init %i : int64[2,2] = [4, -5, 1, 1]\n"
       "  %y = Gather(%x, %i) {axis: int = 1}\n  output %y\n"),
      custom("Expand", "broadcast to 3-D", "  input %x : float32[3,1]\n  init %shape : int64[3] = [2, 3, 4]\n"
                                     "  %y = Expand(%x, %shape)\n  output %y\n"),
      custom("Pad", "constant", "  input %x : float32[2,3]\n  init %pads : int64[4] = [1, 0, 0, 2]\n"
                          "  init %value : float32[] = [0.5]\n  %y = Pad(%x, %pads, %value)\n  output %y\n"),
  };
  return cases;
}

std::vector<std::string> kernel_case_ops() {
  std::vector<std::string> ops;
  for (const KernelCase& kernel_case : kernel_cases()) {
    if (std::find(ops.begin(), ops.end(), kernel_case.op) == ops.end()) ops.push_back(kernel_case.op);
  }
  return ops;
}

}  // namespace ge::backend_conformance
