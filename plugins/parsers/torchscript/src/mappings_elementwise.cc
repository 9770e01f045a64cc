/// Element-wise ops: activations, arithmetic with torch's type promotion, comparisons.

#include <cmath>

#include "importer.h"
#include "mapping_util.h"

namespace ge::torchscript {
namespace {


/// Input 0 in the output's dtype.
Value* x_of(Importer& im, const jit::Node* n) { return operand(im, n, 0, im.output_dtype(n)); }

Mapping unary(const std::string& op_type) {
  return [op_type](Importer& im, const jit::Node* n) { im.bind(n->output(), im.op(op_type, {x_of(im, n)})); };
}

/// Binary arithmetic computed in the output's dtype; `alpha` scales input 1 where the op has one.
Mapping arithmetic(const std::string& op_type, bool has_alpha, bool reversed = false) {
  return [op_type, has_alpha, reversed](Importer& im, const jit::Node* n) {
    const DataType dtype = im.output_dtype(n);
    Value* a = operand(im, n, 0, dtype);
    Value* b = operand(im, n, 1, dtype);
    if (has_alpha && n->inputs().size() > 2 && !im.is_none(n, 2)) {
      const double alpha = im.real(n, 2);
      if (alpha != 1.0) b = im.op("Mul", {b, im.scalar(alpha, dtype)});
    }
    if (reversed) std::swap(a, b);
    im.bind(n->output(), im.op(op_type, {a, b}));
  };
}

/// Comparisons compute in the promoted dtype of their inputs.
Mapping comparison(const std::string& op_type, bool negate = false) {
  return [op_type, negate](Importer& im, const jit::Node* n) {
    const DataType dtype = promoted_dtype(im, n, 0, 1);
    Value* y = im.op(op_type, {operand(im, n, 0, dtype), operand(im, n, 1, dtype)});
    if (negate) y = im.op("Not", {y});
    im.bind(n->output(), y);
  };
}

bool is_floating(DataType t) {
  return t == DataType::kFloat32 || t == DataType::kFloat64 || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

/// Division: true, floor or trunc (`rounding` input 2 when present).
void map_div(Importer& im, const jit::Node* n) {
  std::string mode;
  if (n->inputs().size() > 2 && !im.is_none(n, 2)) mode = im.constant(n, 2).toStringRef();
  const DataType out = im.output_dtype(n);
  if (mode.empty() || is_floating(out)) {
    Value* q = im.op("Div", {operand(im, n, 0, out), operand(im, n, 1, out)});
    if (mode == "floor") q = im.op("Floor", {q});
    if (mode == "trunc") {
      // trunc(q) = sign(q) * floor(|q|)
      q = im.op("Mul", {im.op("Sign", {q}), im.op("Floor", {im.op("Abs", {q})})});
    }
    im.bind(n->output(), q);
    return;
  }
  // Integers: ONNX's Div truncates; floor division goes through float64.
  if (mode == "trunc") {
    im.bind(n->output(), im.op("Div", {operand(im, n, 0, out), operand(im, n, 1, out)}));
    return;
  }
  Value* q = im.op("Floor", {im.op("Div", {operand(im, n, 0, DataType::kFloat64), operand(im, n, 1, DataType::kFloat64)})});
  im.bind(n->output(), im.cast(q, out));
}

void map_floor_divide(Importer& im, const jit::Node* n) {
  const DataType out = im.output_dtype(n);
  if (is_floating(out)) {
    im.bind(n->output(), im.op("Floor", {im.op("Div", {operand(im, n, 0, out), operand(im, n, 1, out)})}));
  } else {
    Value* q = im.op("Floor", {im.op("Div", {operand(im, n, 0, DataType::kFloat64), operand(im, n, 1, DataType::kFloat64)})});
    im.bind(n->output(), im.cast(q, out));
  }
}

void map_pow(Importer& im, const jit::Node* n) {
  const DataType out = im.output_dtype(n);
  if (!im.is_tensor_input(n, 1) && im.real(n, 1) == 2.0) {
    Value* x = operand(im, n, 0, out);
    im.bind(n->output(), im.op("Mul", {x, x}));
    return;
  }
  im.bind(n->output(), im.op("Pow", {operand(im, n, 0, out), operand(im, n, 1, out)}));
}

/// clamp(x, min, max) with either bound None; bounds may be numbers or tensors.
void map_clamp(Importer& im, const jit::Node* n, bool has_min, bool has_max) {
  const DataType dtype = im.output_dtype(n);
  Value* y = x_of(im, n);
  size_t next = 1;
  if (has_min) {
    if (!im.is_none(n, next)) y = im.op("Max", {y, operand(im, n, next, dtype)});
    ++next;
  }
  if (has_max && !im.is_none(n, next)) y = im.op("Min", {y, operand(im, n, next, dtype)});
  im.bind(n->output(), y);
}

void map_hardtanh(Importer& im, const jit::Node* n) {
  const DataType dtype = im.output_dtype(n);
  im.bind(n->output(), im.op("Clip", {x_of(im, n), im.scalar(im.real(n, 1), dtype), im.scalar(im.real(n, 2), dtype)}));
}

void map_relu6(Importer& im, const jit::Node* n) {
  const DataType dtype = im.output_dtype(n);
  im.bind(n->output(), im.op("Clip", {x_of(im, n), im.scalar(0, dtype), im.scalar(6, dtype)}));
}

void map_silu(Importer& im, const jit::Node* n) {
  Value* x = x_of(im, n);
  im.bind(n->output(), im.op("Mul", {x, im.op("Sigmoid", {x})}));
}

void map_gelu(Importer& im, const jit::Node* n) {
  const DataType dtype = im.output_dtype(n);
  Value* x = x_of(im, n);
  std::string approximate = "none";
  if (n->inputs().size() > 1 && !im.is_none(n, 1)) approximate = im.constant(n, 1).toStringRef();
  Value* inner;
  if (approximate == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value* cube = im.op("Mul", {im.op("Mul", {x, x}), x});
    Value* poly = im.op("Add", {x, im.op("Mul", {cube, im.scalar(0.044715, dtype)})});
    inner = im.op("Tanh", {im.op("Mul", {poly, im.scalar(std::sqrt(2.0 / M_PI), dtype)})});
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    inner = im.op("Erf", {im.op("Div", {x, im.scalar(std::sqrt(2.0), dtype)})});
  }
  Value* y = im.op("Mul", {im.op("Mul", {x, im.op("Add", {inner, im.scalar(1, dtype)})}), im.scalar(0.5, dtype)});
  im.bind(n->output(), y);
}

void map_hardsigmoid(Importer& im, const jit::Node* n) {
  im.bind(n->output(), im.op("HardSigmoid", {x_of(im, n)}, {{"alpha", 1.f / 6.f}, {"beta", 0.5f}}));
}

void map_leaky_relu(Importer& im, const jit::Node* n) {
  im.bind(n->output(), im.op("LeakyRelu", {x_of(im, n)}, {{"alpha", static_cast<float>(im.real(n, 1))}}));
}

void map_elu(Importer& im, const jit::Node* n) {
  // aten::elu(self, alpha, scale, input_scale)
  if (im.real(n, 2) != 1.0 || im.real(n, 3) != 1.0) fail("elu with scale or input_scale other than 1 is not mapped");
  im.bind(n->output(), im.op("Elu", {x_of(im, n)}, {{"alpha", static_cast<float>(im.real(n, 1))}}));
}

void map_softplus(Importer& im, const jit::Node* n) {
  // aten::softplus(self, beta, threshold): log(1 + exp(beta x)) / beta, x where beta x > threshold
  const DataType dtype = im.output_dtype(n);
  const double beta = im.real(n, 1);
  Value* x = x_of(im, n);
  Value* bx = beta == 1.0 ? x : im.op("Mul", {x, im.scalar(beta, dtype)});
  Value* soft = im.op("Softplus", {bx});
  if (beta != 1.0) soft = im.op("Div", {soft, im.scalar(beta, dtype)});
  Value* over = im.op("Greater", {bx, im.scalar(im.real(n, 2), dtype)});
  im.bind(n->output(), im.op("Where", {over, x, soft}));
}

void map_mish(Importer& im, const jit::Node* n) {
  Value* x = x_of(im, n);
  im.bind(n->output(), im.op("Mul", {x, im.op("Tanh", {im.op("Softplus", {x})})}));
}

void map_rsqrt(Importer& im, const jit::Node* n) {
  im.bind(n->output(), im.op("Reciprocal", {im.op("Sqrt", {x_of(im, n)})}));
}

void map_where(Importer& im, const jit::Node* n) {
  // aten::where(condition, self, other)
  const DataType dtype = im.output_dtype(n);
  Value* cond = operand(im, n, 0, DataType::kBool);
  im.bind(n->output(), im.op("Where", {cond, operand(im, n, 1, dtype), operand(im, n, 2, dtype)}));
}

void map_masked_fill(Importer& im, const jit::Node* n) {
  // aten::masked_fill(self, mask, value)
  const DataType dtype = im.output_dtype(n);
  Value* mask = operand(im, n, 1, DataType::kBool);
  im.bind(n->output(), im.op("Where", {mask, operand(im, n, 2, dtype), operand(im, n, 0, dtype)}));
}

void map_logical(Importer& im, const jit::Node* n, const std::string& op_type) {
  im.bind(n->output(), im.op(op_type, {operand(im, n, 0, DataType::kBool), operand(im, n, 1, DataType::kBool)}));
}

void map_bitwise(Importer& im, const jit::Node* n, const std::string& op_type) {
  if (im.output_dtype(n) != DataType::kBool) fail("bitwise ops are mapped on bool tensors only");
  map_logical(im, n, op_type);
}

}  // namespace

void add_elementwise_mappings(MappingTable& t) {
  const std::pair<const char*, const char*> unaries[] = {
      {"relu", "Relu"},   {"sigmoid", "Sigmoid"}, {"tanh", "Tanh"},   {"exp", "Exp"},     {"log", "Log"},
      {"sqrt", "Sqrt"},   {"neg", "Neg"},         {"abs", "Abs"},     {"erf", "Erf"},     {"sin", "Sin"},
      {"cos", "Cos"},     {"floor", "Floor"},     {"ceil", "Ceil"},   {"reciprocal", "Reciprocal"},
      {"sign", "Sign"},   {"hardswish", "HardSwish"}, {"round", "Round"}, {"atan", "Atan"}, {"asin", "Asin"},
      {"acos", "Acos"},   {"tan", "Tan"},         {"sinh", "Sinh"},   {"cosh", "Cosh"},   {"log1p", ""},
  };
  for (const auto& [name, op] : unaries) {
    if (std::string(op).empty()) continue;
    t[std::string("aten::") + name] = unary(op);
  }
  t["aten::log1p"] = [](Importer& im, const jit::Node* n) {
    im.bind(n->output(), im.op("Log", {im.op("Add", {x_of(im, n), im.scalar(1, im.output_dtype(n))})}));
  };
  t["aten::logical_not"] = [](Importer& im, const jit::Node* n) {
    im.bind(n->output(), im.op("Not", {operand(im, n, 0, DataType::kBool)}));
  };
  t["aten::bitwise_not"] = t["aten::logical_not"];
  // bool(tensor), the condition of an If on the input's data: a one-element bool tensor
  // (an ONNX If's condition).
  t["aten::Bool"] = [](Importer& im, const jit::Node* n) {
    if (!im.is_tensor_input(n, 0)) fail("bool() of a Python number computed from the input's data is not mapped");
    im.bind(n->output(), im.cast(im.tensor(n, 0), DataType::kBool));
  };
  t["aten::is_nonzero"] = t["aten::Bool"];
  t["aten::add"] = arithmetic("Add", true);
  t["aten::sub"] = arithmetic("Sub", true);
  t["aten::rsub"] = arithmetic("Sub", true, /*reversed=*/true);
  t["aten::mul"] = arithmetic("Mul", false);
  t["aten::maximum"] = arithmetic("Max", false);
  t["aten::minimum"] = arithmetic("Min", false);
  t["aten::div"] = map_div;
  t["aten::true_divide"] = map_div;
  t["aten::floor_divide"] = map_floor_divide;
  t["aten::pow"] = map_pow;
  t["aten::eq"] = comparison("Equal");
  t["aten::ne"] = comparison("Equal", /*negate=*/true);
  t["aten::lt"] = comparison("Less");
  t["aten::le"] = comparison("LessOrEqual");
  t["aten::gt"] = comparison("Greater");
  t["aten::ge"] = comparison("GreaterOrEqual");
  t["aten::clamp"] = [](Importer& im, const jit::Node* n) { map_clamp(im, n, true, true); };
  t["aten::clip"] = t["aten::clamp"];
  t["aten::clamp_min"] = [](Importer& im, const jit::Node* n) { map_clamp(im, n, true, false); };
  t["aten::clamp_max"] = [](Importer& im, const jit::Node* n) { map_clamp(im, n, false, true); };
  t["aten::hardtanh"] = map_hardtanh;
  t["aten::relu6"] = map_relu6;
  t["aten::silu"] = map_silu;
  t["aten::gelu"] = map_gelu;
  t["aten::hardsigmoid"] = map_hardsigmoid;
  t["aten::leaky_relu"] = map_leaky_relu;
  t["aten::elu"] = map_elu;
  t["aten::softplus"] = map_softplus;
  t["aten::mish"] = map_mish;
  t["aten::rsqrt"] = map_rsqrt;
  t["aten::where"] = map_where;
  t["aten::masked_fill"] = map_masked_fill;
  t["aten::logical_and"] = [](Importer& im, const jit::Node* n) { map_logical(im, n, "And"); };
  t["aten::logical_or"] = [](Importer& im, const jit::Node* n) { map_logical(im, n, "Or"); };
  t["aten::logical_xor"] = [](Importer& im, const jit::Node* n) { map_logical(im, n, "Xor"); };
  t["aten::bitwise_and"] = [](Importer& im, const jit::Node* n) { map_bitwise(im, n, "And"); };
  t["aten::bitwise_or"] = [](Importer& im, const jit::Node* n) { map_bitwise(im, n, "Or"); };
  t["aten::__and__"] = t["aten::bitwise_and"];
  t["aten::__or__"] = t["aten::bitwise_or"];
}

}  // namespace ge::torchscript
