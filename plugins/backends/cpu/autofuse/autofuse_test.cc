// Autofusion's runners against the unfused kernels: random loop-IR programs (elementwise,
// broadcasting, innermost-axis reductions and reductions over axes before inner ones, comparisons, logic and Where, softmax rows,
// bool and float16 inputs, bool outputs, several outputs) run instruction by instruction
// through the reference library's standalone kernels, through the interpreter, and
// through generated code; softmax programs against the Softmax kernel. The online
// compiler's own tests are in autofuse_compiler_test.cc.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "autofuse_codegen.h"
#include "autofuse_compiler.h"
#include "autofuse_kernels.h"
#include "ge/autofuse/loop_ir.h"
#include "ge/reference_kernels/half_float.h"
#include "ge/reference_kernels/kernel_library.h"
#include "testing/kernel_test_util.h"

namespace ge::cpu_autofuse {
namespace {

using autofuse::Op;
using autofuse::Program;
using reference_kernels::testing::KernelTest;

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

struct Case {
  Program program;
  std::vector<std::vector<int64_t>> shapes;  // each value's numpy shape in the unfused chain
  std::vector<Tensor> inputs;
};

/// A random input tensor: float32 in [-2, 2], float16 of such values, bool, or int64 in
/// [-3, 3] with some values beyond float32's integers (2^40 + odd: they round).
Tensor random_input(std::mt19937& rng, DataType dtype, const std::vector<int64_t>& dims) {
  Tensor t = Tensor::zeros(dtype, dims);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  for (int64_t e = 0; e < t.element_count(); ++e) {
    if (dtype == DataType::kBool) {
      static_cast<unsigned char*>(t.raw_data())[e] = rng() % 2;
    } else if (dtype == DataType::kFloat16) {
      static_cast<uint16_t*>(t.raw_data())[e] = reference_kernels::float16_from_float(uniform(rng));
    } else if (dtype == DataType::kInt64) {
      const int64_t small = static_cast<int64_t>(rng() % 7) - 3;
      t.data<int64_t>()[e] = rng() % 8 == 0 ? (int64_t{1} << 40) + 2 * small + 1 : small;
    } else {
      t.data<float>()[e] = uniform(rng);
    }
  }
  return t;
}

/// A random valid program over a random shape; inputs in [-2, 2] (or bool). `across`:
/// one that reduces axes before inner ones.
Case random_case(std::mt19937& rng, bool across = false) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Case c;
  Program& p = c.program;
  const int rank = across ? 2 + pick(2) : 1 + pick(3);
  for (int d = 0; d < rank; ++d) p.shape.push_back(1 + pick(6));
  if (pick(4) == 0) p.shape.back() = 700 + pick(900);  // rows longer than the interpreter's chunk
  p.reduced_axes = pick(2) == 0 && !across ? 0 : std::min(rank - (across ? 1 : 0), 1 + pick(2));
  // Half the reductions are over axes before inner ones (Softmax over axis 1 of NCHW).
  if (p.reduced_axes > 0 && p.reduced_axes < rank && (across || pick(2) == 0)) {
    p.inner_axes = 1 + pick(rank - p.reduced_axes);
  }
  const size_t k = static_cast<size_t>(p.reduced_axes);
  const size_t first = autofuse::first_reduced_axis(p), inner_from = first + k;
  const int input_count = 1 + pick(3);
  for (int i = 0; i < input_count; ++i) {
    std::vector<int64_t> dims = p.shape;
    DataType dtype = DataType::kFloat32;
    if (i > 0) {
      const bool constant_along_reduced = pick(2) == 0, constant_along_inner = pick(3) == 0;
      for (size_t axis = 0; axis < dims.size(); ++axis) {
        const bool one = axis >= inner_from ? constant_along_inner
                         : axis >= first    ? constant_along_reduced
                                            : pick(3) == 0;
        if (one) dims[axis] = 1;
      }
      const int drop = pick(static_cast<int>(dims.size()));
      size_t dropped = 0;
      while (dropped < static_cast<size_t>(drop) && dims[dropped] == 1) ++dropped;
      dims.erase(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(dropped));
      const int type = pick(7);
      dtype = type == 0   ? DataType::kBool
              : type == 1 ? DataType::kFloat16
              : type == 2 ? DataType::kInt64
                          : DataType::kFloat32;
    }
    p.inputs.push_back({dims, dtype});
    c.inputs.push_back(random_input(rng, dtype, dims));
    p.code.push_back({Op::kLoad, -1, -1, i, 0});
    c.shapes.push_back(dims);
  }
  static const Op unary[] = {Op::kNeg, Op::kAbs, Op::kExp, Op::kLog, Op::kSqrt, Op::kReciprocal, Op::kRelu,
                             Op::kSigmoid, Op::kTanh, Op::kErf, Op::kFloor, Op::kCeil, Op::kSin, Op::kCos};
  static const Op binary[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kPow, Op::kMax, Op::kMin};
  static const Op masks[] = {Op::kEqual, Op::kLess, Op::kGreater, Op::kLessOrEqual, Op::kGreaterOrEqual,
                             Op::kAnd, Op::kOr, Op::kXor, Op::kNot, Op::kCastBool};
  static const Op reductions[] = {Op::kReduceSum, Op::kReduceMean, Op::kReduceMax, Op::kReduceMin};
  auto push = [&](Op op, int a, int b = -1, int c3 = -1) {
    autofuse::Instruction in;
    in.op = op;
    in.a = a;
    in.b = b;
    in.c = c3;
    std::vector<int64_t> shape = a >= 0 ? c.shapes[static_cast<size_t>(a)] : std::vector<int64_t>{};
    if (b >= 0) shape = broadcast(shape, c.shapes[static_cast<size_t>(b)]);
    if (c3 >= 0) shape = broadcast(shape, c.shapes[static_cast<size_t>(c3)]);
    if (autofuse::is_reduction(op)) {  // missing leading dims are 1 in the shape
      const size_t missing = p.shape.size() - shape.size();
      for (size_t axis = std::max(first, missing); axis < inner_from; ++axis) shape[axis - missing] = 1;
    }
    p.code.push_back(in);
    c.shapes.push_back(shape);
    return static_cast<int>(p.code.size()) - 1;
  };
  auto full_value = [&]() -> int {
    const std::vector<bool> row = autofuse::row_values(p);
    std::vector<int> full;
    for (int i = 0; i < static_cast<int>(p.code.size()); ++i) {
      if (!row[static_cast<size_t>(i)]) full.push_back(i);
    }
    return full.empty() ? -1 : full[static_cast<size_t>(pick(static_cast<int>(full.size())))];
  };
  const int ops = 3 + pick(8);
  for (int n = 0; n < ops; ++n) {
    const int values = static_cast<int>(p.code.size());
    const int kind = pick(14);
    if (kind == 0) {
      autofuse::Instruction in;
      in.op = Op::kConst;
      in.constant = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
      if (pick(3) == 0) in.constant = 2.0f;  // Pow's x * x path
      if (pick(4) == 0) in.constant = pick(2) == 0 ? -INFINITY : 0.0f;  // masks' fill values
      p.code.push_back(in);
      c.shapes.push_back({});
    } else if (kind <= 3) {
      push(unary[pick(std::size(unary))], pick(values));
    } else if (kind <= 7 || ((kind <= 9 || kind >= 12) && k == 0)) {
      push(binary[pick(std::size(binary))], pick(values), pick(values));
    } else if (kind <= 9) {
      const int a = full_value();
      if (a >= 0) push(reductions[pick(std::size(reductions))], a);
    } else if (kind == 10) {
      const Op op = masks[pick(std::size(masks))];
      push(op, pick(values), autofuse::arity(op) == 2 ? pick(values) : -1);
    } else if (kind == 11) {
      push(Op::kWhere, pick(values), pick(values), pick(values));
    } else {
      // A softmax row (or log-softmax) as the autofusion pass spells Softmax out.
      const int x = full_value();
      if (x < 0) continue;
      const int shifted = push(Op::kSub, x, push(Op::kReduceMax, x));
      const int exp = push(Op::kExp, shifted);
      const int sum = push(Op::kReduceSum, exp);
      if (pick(2) == 0) {
        push(Op::kDiv, exp, sum);
      } else {
        push(Op::kSub, shifted, push(Op::kLog, sum));
      }
    }
  }
  // Outputs: values whose unfused shape is the full shape or the rows' (keepdims) shape;
  // values always 0 or 1 are sometimes bool outputs.
  std::vector<int64_t> rows = p.shape;
  for (size_t axis = first; axis < inner_from; ++axis) rows[axis] = 1;
  const std::vector<bool> row = autofuse::row_values(p);
  const std::vector<bool> boolean = autofuse::boolean_values(p);
  auto add_output = [&](int value) {
    const auto& shape = c.shapes[static_cast<size_t>(value)];
    const DataType dtype = boolean[static_cast<size_t>(value)] && pick(2) == 0 ? DataType::kBool
                           : pick(4) == 0                                      ? DataType::kFloat16
                                                                               : DataType::kFloat32;
    if (shape == p.shape && !(k > 0 && row[static_cast<size_t>(value)])) p.outputs.push_back({value, p.shape, dtype});
    if (k > 0 && row[static_cast<size_t>(value)] && shape == rows) p.outputs.push_back({value, rows, dtype});
  };
  add_output(static_cast<int>(p.code.size()) - 1);
  add_output(pick(static_cast<int>(p.code.size())));
  if (p.outputs.empty() || pick(2) == 0) {  // a full value from the last one, broadcast against load 0
    const bool mask = pick(3) == 0;
    const int last = push(mask ? Op::kGreater : Op::kAdd, static_cast<int>(p.code.size()) - 1, 0);
    p.outputs.push_back({last, p.shape, mask ? DataType::kBool : DataType::kFloat32});
  }
  return c;
}

const char* onnx_op(Op op) {
  switch (op) {
    case Op::kNeg: return "Neg";
    case Op::kAbs: return "Abs";
    case Op::kExp: return "Exp";
    case Op::kLog: return "Log";
    case Op::kSqrt: return "Sqrt";
    case Op::kReciprocal: return "Reciprocal";
    case Op::kRelu: return "Relu";
    case Op::kSigmoid: return "Sigmoid";
    case Op::kTanh: return "Tanh";
    case Op::kErf: return "Erf";
    case Op::kFloor: return "Floor";
    case Op::kCeil: return "Ceil";
    case Op::kSin: return "Sin";
    case Op::kCos: return "Cos";
    case Op::kNot: return "Not";
    case Op::kAdd: return "Add";
    case Op::kSub: return "Sub";
    case Op::kMul: return "Mul";
    case Op::kDiv: return "Div";
    case Op::kPow: return "Pow";
    case Op::kMax: return "Max";
    case Op::kMin: return "Min";
    case Op::kEqual: return "Equal";
    case Op::kLess: return "Less";
    case Op::kGreater: return "Greater";
    case Op::kLessOrEqual: return "LessOrEqual";
    case Op::kGreaterOrEqual: return "GreaterOrEqual";
    case Op::kAnd: return "And";
    case Op::kOr: return "Or";
    case Op::kXor: return "Xor";
    case Op::kWhere: return "Where";
    case Op::kReduceSum: return "ReduceSum";
    case Op::kReduceMean: return "ReduceMean";
    case Op::kReduceMax: return "ReduceMax";
    case Op::kReduceMin: return "ReduceMin";
    default: return "";
  }
}

/// One standalone kernel run; an undefined tensor (and a test failure) when it fails.
Tensor run_kernel(KernelTest& test, DataType dtype, const std::vector<int64_t>& dims) {
  test.output(dtype, dims);
  Result<std::vector<Tensor>> out = test.run();
  EXPECT_TRUE(out.is_ok()) << out.status().to_string();
  return out.is_ok() ? std::move(out).value()[0] : Tensor();
}

/// The Cast kernel's `x` as `to`.
Tensor cast(const Tensor& x, DataType to) {
  if (x.dtype() == to || !x.defined()) return x;
  KernelTest test("Cast", 17);
  test.input(x).attribute("to", Attribute(static_cast<int64_t>(to)));
  return run_kernel(test, to, x.shape());
}

/// The program's outputs computed by the standalone kernels, one node per instruction
/// (comparisons, logic and Where with Casts between float32 and bool around them, as the
/// program computes them in float).
std::vector<Tensor> run_unfused(const Case& c) {
  const Program& p = c.program;
  std::vector<Tensor> values;
  for (size_t i = 0; i < p.code.size(); ++i) {
    const autofuse::Instruction& in = p.code[i];
    if (in.op == Op::kLoad) {
      values.push_back(cast(c.inputs[static_cast<size_t>(in.input)], DataType::kFloat32));
      continue;
    }
    if (in.op == Op::kConst) {
      values.push_back(Tensor::from_vector<float>({}, {in.constant}));
      continue;
    }
    auto operand = [&](int value, bool truth) {
      const Tensor& t = values[static_cast<size_t>(value)];
      return truth ? cast(t, DataType::kBool) : t;
    };
    if (in.op == Op::kCastBool) {
      values.push_back(cast(cast(operand(in.a, false), DataType::kBool), DataType::kFloat32));
      continue;
    }
    const bool logic = in.op == Op::kNot || in.op == Op::kAnd || in.op == Op::kOr || in.op == Op::kXor;
    const bool gives_bool = logic || (in.op >= Op::kEqual && in.op <= Op::kGreaterOrEqual);
    KernelTest test(onnx_op(in.op), 17);
    test.input(operand(in.a, logic || in.op == Op::kWhere));
    if (autofuse::arity(in.op) >= 2) test.input(operand(in.b, logic));
    if (autofuse::arity(in.op) >= 3) test.input(operand(in.c, false));
    if (autofuse::is_reduction(in.op)) {
      std::vector<int64_t> axes;
      const int operand_rank = static_cast<int>(c.shapes[static_cast<size_t>(in.a)].size());
      const int end = -p.inner_axes;  // axes counted from the end, as the operand may lack leading dims
      for (int axis = std::max(end - p.reduced_axes, -operand_rank); axis < end; ++axis) axes.push_back(axis);
      if (in.op == Op::kReduceSum) {
        test.initializer(Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes));
      } else {
        test.attribute("axes", Attribute(axes));
      }
      test.attribute("keepdims", Attribute(int64_t{1}));
    }
    Tensor out = run_kernel(test, gives_bool ? DataType::kBool : DataType::kFloat32, c.shapes[i]);
    if (!out.defined()) return {};
    values.push_back(cast(out, DataType::kFloat32));
  }
  std::vector<Tensor> outputs;
  for (const autofuse::Output& out : p.outputs) {
    // A full output whose value broadcasts (a smaller shape) is expanded to the full shape.
    const Tensor& value = values[static_cast<size_t>(out.value)];
    Tensor expanded = Tensor::zeros(DataType::kFloat32, out.dims);
    const int64_t n = expanded.element_count(), m = value.element_count();
    for (int64_t e = 0; e < n; ++e) expanded.data<float>()[e] = value.data<float>()[m == n ? e : 0];
    outputs.push_back(cast(expanded, out.dtype));
  }
  return outputs;
}

/// A ge_autofuse.Fused node for the case, in its own graph.
struct FusedNode {
  Graph graph;
  Node* node = nullptr;
  explicit FusedNode(const Case& c, const std::string& mode = "codegen") {
    graph.set_opset_import("", 17);
    graph.set_opset_import("ge_autofuse", 1);
    std::vector<Value*> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      inputs.push_back(graph.add_input("in" + std::to_string(i), TensorDesc::of(c.program.inputs[i].dtype, c.program.inputs[i].dims)));
    }
    std::vector<std::string> names;
    for (size_t o = 0; o < c.program.outputs.size(); ++o) names.push_back("out" + std::to_string(o));
    node = graph.add_node("Fused", inputs, names.size(), "fused", names);
    node->set_domain("ge_autofuse");
    node->set_attribute("program", Attribute(autofuse::print(c.program)));
    node->set_attribute("mode", Attribute(mode));
    for (size_t o = 0; o < names.size(); ++o) {
      node->output(o)->set_desc(TensorDesc::of(c.program.outputs[o].dtype, c.program.outputs[o].dims));
    }
  }
};

std::vector<Tensor> launch(const PreparedKernel& kernel, const Case& c) {
  std::vector<const void*> inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(t.raw_data());
  std::vector<Tensor> outputs;
  std::vector<void*> output_addresses;
  for (const autofuse::Output& out : c.program.outputs) {
    outputs.push_back(Tensor::zeros(out.dtype, out.dims));
    std::memset(outputs.back().raw_data(), 0xFF, outputs.back().byte_size());
  }
  for (Tensor& t : outputs) output_addresses.push_back(t.raw_data());
  std::vector<unsigned char> workspace(kernel.workspace_bytes + 1);
  KernelArgs args;
  args.inputs = inputs.data();
  args.outputs = output_addresses.data();
  args.workspace = workspace.data();
  args.params = kernel.params.get();
  EXPECT_EQ(kernel.function(args), 0);
  return outputs;
}

/// Equal bit for bit (any NaN matching any NaN), or within `tolerance` relative.
/// `t` as float32 (float16 elements widen exactly).
Tensor widened(const Tensor& t) {
  if (t.dtype() != DataType::kFloat16) return t;
  Tensor out = Tensor::zeros(DataType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.element_count(); ++i) out.data<float>()[i] = static_cast<float>(t.scalar_as_double(i));
  return out;
}

/// Outputs equal bit for bit (tolerance 0) or within `tolerance` relative; a float16
/// output compared within tolerance allows one float16 rounding step (2^-10 relative) on
/// top, as values that differ in float32 may round to neighbouring float16s.
void expect_same(const std::vector<Tensor>& actual_outputs, const std::vector<Tensor>& expected_outputs,
                 double tolerance, const std::string& what) {
  std::vector<Tensor> actual, expected;
  for (const Tensor& t : actual_outputs) actual.push_back(widened(t));
  for (const Tensor& t : expected_outputs) expected.push_back(widened(t));
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t o = 0; o < actual.size(); ++o) {
    ASSERT_EQ(actual[o].element_count(), expected[o].element_count()) << what;
    ASSERT_EQ(actual_outputs[o].dtype(), expected_outputs[o].dtype()) << what;
    const double allowed = tolerance > 0 && actual_outputs[o].dtype() == DataType::kFloat16 ? tolerance + 0x1p-10 : tolerance;
    if (actual[o].dtype() == DataType::kBool) {
      const auto* a = static_cast<const unsigned char*>(actual[o].raw_data());
      const auto* e = static_cast<const unsigned char*>(expected[o].raw_data());
      for (int64_t i = 0; i < actual[o].element_count(); ++i) {
        ASSERT_EQ(a[i], e[i]) << what << " output " << o << " element " << i;
      }
      continue;
    }
    const float* a = actual[o].data<float>();
    const float* e = expected[o].data<float>();
    for (int64_t i = 0; i < actual[o].element_count(); ++i) {
      if (std::isnan(e[i])) {
        ASSERT_TRUE(std::isnan(a[i])) << what << " output " << o << " element " << i;
      } else if (a[i] == e[i]) {
        continue;  // infinities included
      } else if (allowed == 0) {
        ASSERT_EQ(std::memcmp(&a[i], &e[i], sizeof(float)) == 0 || a[i] == e[i], true)
            << what << " output " << o << " element " << i << ": " << a[i] << " vs " << e[i];
      } else {
        ASSERT_NEAR(a[i], e[i], allowed * (1.0 + std::fabs(e[i]))) << what << " output " << o << " element " << i;
      }
    }
  }
}

bool sums(const Program& p) {
  for (const auto& in : p.code) {
    if (in.op == Op::kReduceSum || in.op == Op::kReduceMean) return true;
  }
  return false;
}

class AutofuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = std::filesystem::temp_directory_path() /
             ("ge_autofuse_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(cache_);
    ::setenv("GE_AUTOFUSE_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }
  std::filesystem::path cache_;
};

/// What a program exercises, so a generator that stopped producing something fails.
std::set<std::string> features(const Program& p) {
  std::set<std::string> seen;
  for (const autofuse::Input& input : p.inputs) seen.insert("input " + std::string(data_type_name(input.dtype)));
  for (const autofuse::Output& output : p.outputs) seen.insert("output " + std::string(data_type_name(output.dtype)));
  for (size_t i = 0; i < p.code.size(); ++i) {
    const Op op = p.code[i].op;
    if (op == Op::kWhere) seen.insert("where");
    if (op >= Op::kEqual && op <= Op::kGreaterOrEqual) seen.insert("comparison");
    if (op == Op::kAnd || op == Op::kOr || op == Op::kXor || op == Op::kNot) seen.insert("logic");
    if (op == Op::kReduceSum && p.code[static_cast<size_t>(p.code[i].a)].op == Op::kExp) {
      seen.insert(p.inner_axes > 0 ? "softmax across inner axes" : "softmax row");
    }
    if (autofuse::is_reduction(op) && p.inner_axes > 0) seen.insert("reduction before inner axes");
  }
  return seen;
}

void expect_all_features(const std::set<std::string>& seen) {
  for (const char* feature : {"input float32", "input float16", "input bool", "input int64", "output float32", "output float16",
                              "output bool", "where",
                              "comparison", "logic", "softmax row", "softmax across inner axes",
                              "reduction before inner axes"}) {
    EXPECT_TRUE(seen.count(feature)) << "no random program had " << feature;
  }
}

// Thousands of random programs: the interpreter equals the unfused kernels bit for bit.
TEST_F(AutofuseTest, InterpreterMatchesUnfusedKernels) {
  std::mt19937 rng(1234);
  std::set<std::string> seen;
  for (int n = 0; n < 2000; ++n) {
    const Case c = random_case(rng);
    seen.merge(features(c.program));
    ASSERT_TRUE(autofuse::validate(c.program).is_ok()) << autofuse::print(c.program);
    FusedNode fused(c, "interpret");
    Result<PreparedKernel> kernel = reference_kernels::prepare(*fused.node, "cpu");
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string() << "\n" << autofuse::print(c.program);
    const std::vector<Tensor> expected = run_unfused(c);
    expect_same(launch(kernel.value(), c), expected, 0, "case " + std::to_string(n) + ":\n" + autofuse::print(c.program));
    if (HasFatalFailure()) return;
  }
  expect_all_features(seen);
}

// Generated code equals the interpreter (sums: within rounding, their order differs).
TEST_F(AutofuseTest, GeneratedCodeMatchesInterpreter) {
  std::mt19937 rng(99);
  std::set<std::string> seen;
  for (int n = 0; n < 60; ++n) {
    const Case c = random_case(rng, n >= 40);
    seen.merge(features(c.program));
    FusedNode fused(c);
    Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
    ASSERT_TRUE(interpreted.is_ok()) << interpreted.status().to_string();
    std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 1 + n % 2, /*mode=*/{}, /*vector_math=*/false);
    ASSERT_TRUE(generated.has_value()) << autofuse::print(c.program);
    expect_same(launch(*generated, c), launch(interpreted.value(), c), sums(c.program) ? 1e-5 : 0,
                "case " + std::to_string(n) + ":\n" + autofuse::print(c.program) + "\n" +
                    generate_source(c.program, 1 + n % 2, false));
    if (HasFatalFailure()) return;
  }
  expect_all_features(seen);
}

/// Attention's tail as the autofusion pass lowers it: Softmax (or LogSoftmax) of
/// Where(mask, x * scale, -inf) over rows of `n`. Row 1 is masked entirely, rows 2 and 3
/// all but one element.
Case masked_softmax_case(bool log, int64_t rows, int64_t n, float spread) {
  Case c;
  Program& p = c.program;
  p.shape = {rows, n};
  p.reduced_axes = 1;
  p.inputs = {{{rows, n}}, {{rows, n}, DataType::kBool}};
  std::mt19937 rng(static_cast<unsigned>(n));
  std::uniform_real_distribution<float> uniform(-spread, spread);
  Tensor x = Tensor::zeros(DataType::kFloat32, {rows, n}), mask = Tensor::zeros(DataType::kBool, {rows, n});
  auto* keep = static_cast<unsigned char*>(mask.raw_data());
  for (int64_t e = 0; e < rows * n; ++e) {
    x.data<float>()[e] = uniform(rng);
    const int64_t row = e / n;
    keep[e] = row == 1 ? 0 : row == 2 || row == 3 ? (e % n == 5) : rng() % 8 != 0;
  }
  c.inputs = {x, mask};
  auto push = [&](Op op, int a = -1, int b = -1, int c3 = -1, float constant = 0) {
    autofuse::Instruction in;
    in.op = op;
    in.a = a;
    in.b = b;
    in.c = c3;
    in.constant = constant;
    in.input = op == Op::kLoad ? a : -1;
    if (op == Op::kLoad) in.a = -1;
    p.code.push_back(in);
    return static_cast<int>(p.code.size()) - 1;
  };
  const int scaled = push(Op::kMul, push(Op::kLoad, 0), push(Op::kConst, -1, -1, -1, 0.125f));
  const int masked = push(Op::kWhere, push(Op::kLoad, 1), scaled, push(Op::kConst, -1, -1, -1, -INFINITY));
  const int shifted = push(Op::kSub, masked, push(Op::kReduceMax, masked));
  const int exp = push(Op::kExp, shifted);
  const int sum = push(Op::kReduceSum, exp);
  const int y = log ? push(Op::kSub, shifted, push(Op::kLog, sum)) : push(Op::kDiv, exp, sum);
  p.outputs.push_back({y, {rows, n}});
  return c;
}

/// Mul, Where and the Softmax (LogSoftmax) kernel on the case.
Tensor run_softmax_kernels(const Case& c, bool log) {
  const std::vector<int64_t> dims = c.program.shape;
  KernelTest mul("Mul", 17);
  mul.input(c.inputs[0]).input(Tensor::from_vector<float>({}, {0.125f}));
  const Tensor scaled = run_kernel(mul, DataType::kFloat32, dims);
  KernelTest where("Where", 17);
  where.input(c.inputs[1]).input(scaled).input(Tensor::from_vector<float>({}, {-INFINITY}));
  const Tensor masked = run_kernel(where, DataType::kFloat32, dims);
  KernelTest softmax(log ? "LogSoftmax" : "Softmax", 13);
  softmax.input(masked);
  return run_kernel(softmax, DataType::kFloat32, dims);
}

// The lowered Softmax against the Softmax kernel (which computes in double): within
// 1e-6 relative where the result is at least 1e-6 (log: 1e-6 absolute, the values are
// differences), below that within 1e-12 absolute; a row masked entirely is NaN in both,
// as the kernel gives it (max = -inf, and -inf - -inf is NaN). Interpreted and generated
// with vector math (libmvec's expf).
TEST_F(AutofuseTest, SoftmaxRowsMatchTheSoftmaxKernel) {
  for (bool log : {false, true}) {
    for (int64_t n : {7, 64, 333, 2048, 20000}) {
      const Case c = masked_softmax_case(log, 16, n, 80.0f);  // x * scale in [-10, 10]
      const std::string what = std::string(log ? "LogSoftmax" : "Softmax") + " rows of " + std::to_string(n);
      // Softmax's exps, computed in the sum's walk over a row, are kept for the last walk
      // while a row fits 64 KiB (LogSoftmax's last walk needs no exp).
      EXPECT_EQ(generate_source(c.program, 2).find("float keep") != std::string::npos, !log && n <= 16384) << what;
      const Tensor expected = run_softmax_kernels(c, log);
      ASSERT_TRUE(expected.defined()) << what;
      FusedNode fused(c);
      Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
      ASSERT_TRUE(interpreted.is_ok()) << interpreted.status().to_string();
      std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 2);
      ASSERT_TRUE(generated.has_value()) << what;
      for (const Tensor& actual : {launch(interpreted.value(), c)[0], launch(*generated, c)[0]}) {
        double worst = 0;
        for (int64_t i = 0; i < expected.element_count(); ++i) {
          const float a = actual.data<float>()[i], e = expected.data<float>()[i];
          if (std::isnan(e) || std::isnan(a)) {
            ASSERT_EQ(std::isnan(a), std::isnan(e)) << what << " element " << i << ": " << a << " vs " << e;
            ASSERT_EQ(std::isnan(e), i / n == 1) << what << " element " << i << ": only row 1 is NaN";
            continue;
          }
          if (a == e) continue;  // -inf (log of a masked element) included
          const double error = std::fabs(static_cast<double>(a) - e);
          const double allowed = log ? 1e-6 * std::max(1.0, std::fabs(static_cast<double>(e)))
                                     : std::fabs(e) >= 1e-6 ? 1e-6 * std::fabs(e) : 1e-12;
          worst = std::max(worst, error / allowed);
          ASSERT_LE(error, allowed) << what << " element " << i << ": " << a << " vs " << e;
        }
        std::cout << what << ": worst error " << worst << " of the allowed\n";
      }
    }
  }
}

// Softmax (LogSoftmax) over axis 1 of [N, C, H, W] as the pass lowers it ("reduce 1
// inner 2"): Where(mask, x, -inf) then the softmax, against the Where and Softmax kernels,
// interpreted and generated, within the tolerances above. The column (n 1, h 2, w 3) is
// masked entirely: NaN in both, as the Softmax kernel gives it.
TEST_F(AutofuseTest, SoftmaxOverAnOuterAxisMatchesTheSoftmaxKernel) {
  for (bool log : {false, true}) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{2, 21, 4, 9}, std::vector<int64_t>{3, 5, 17, 40}}) {
      Case c;
      Program& p = c.program;
      p.shape = dims;
      p.reduced_axes = 1;
      p.inner_axes = 2;
      p.inputs = {{dims}, {dims, DataType::kBool}};
      std::mt19937 rng(static_cast<unsigned>(dims[1]));
      std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
      Tensor x = Tensor::zeros(DataType::kFloat32, dims), mask = Tensor::zeros(DataType::kBool, dims);
      auto* keep = static_cast<unsigned char*>(mask.raw_data());
      const int64_t lanes = dims[2] * dims[3];
      auto masked_column = [&](int64_t e) { return e / (dims[1] * lanes) == 1 && e % lanes == 2 * dims[3] + 3; };
      for (int64_t e = 0; e < x.element_count(); ++e) {
        x.data<float>()[e] = uniform(rng);
        keep[e] = masked_column(e) ? 0 : rng() % 8 != 0;
      }
      c.inputs = {x, mask};
      p.code = {{Op::kLoad, -1, -1, 0, 0}, {Op::kLoad, -1, -1, 1, 0}, {Op::kConst, -1, -1, -1, -INFINITY},
                {Op::kWhere, 1, 0, -1, 0},  {Op::kReduceMax, 3},         {Op::kSub, 3, 4},
                {Op::kExp, 5},              {Op::kReduceSum, 6}};
      p.code[3].c = 2;
      if (log) {
        p.code.push_back({Op::kLog, 7});
        p.code.push_back({Op::kSub, 5, 8});
      } else {
        p.code.push_back({Op::kDiv, 6, 7});
      }
      p.outputs.push_back({static_cast<int>(p.code.size()) - 1, dims});
      ASSERT_TRUE(autofuse::validate(p).is_ok()) << autofuse::validate(p).to_string();
      KernelTest where("Where", 17);
      where.input(mask).input(x).input(Tensor::from_vector<float>({}, {-INFINITY}));
      const Tensor masked = run_kernel(where, DataType::kFloat32, dims);
      KernelTest softmax(log ? "LogSoftmax" : "Softmax", 13);
      softmax.input(masked).attribute("axis", Attribute(int64_t{1}));
      const Tensor expected = run_kernel(softmax, DataType::kFloat32, dims);
      ASSERT_TRUE(expected.defined());
      FusedNode fused(c);
      Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
      ASSERT_TRUE(interpreted.is_ok()) << interpreted.status().to_string();
      std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 2);
      ASSERT_TRUE(generated.has_value());
      const std::string what = std::string(log ? "LogSoftmax" : "Softmax") + " over axis 1 of " +
                               std::to_string(dims[1]) + " channels";
      for (const Tensor& actual : {launch(interpreted.value(), c)[0], launch(*generated, c)[0]}) {
        for (int64_t i = 0; i < expected.element_count(); ++i) {
          const float a = actual.data<float>()[i], e = expected.data<float>()[i];
          if (std::isnan(e) || std::isnan(a)) {
            ASSERT_EQ(std::isnan(a), std::isnan(e)) << what << " element " << i << ": " << a << " vs " << e;
            ASSERT_TRUE(masked_column(i)) << what << " element " << i << ": only the masked column is NaN";
            continue;
          }
          if (a == e) continue;
          const double error = std::fabs(static_cast<double>(a) - e);
          const double allowed = log ? 1e-6 * std::max(1.0, std::fabs(static_cast<double>(e)))
                                     : std::fabs(e) >= 1e-6 ? 1e-6 * std::fabs(e) : 1e-12;
          ASSERT_LE(error, allowed) << what << " element " << i << ": " << a << " vs " << e;
        }
      }
      // The generated loops run along the lanes, the reduced axis outside them.
      const std::string source = generate_source(p, 2);
      EXPECT_NE(source.find("for (int64_t i = 0; i < " + std::to_string(dims[1]) + "; ++i) {\n#pragma omp simd\n"),
                std::string::npos)
          << source;
    }
  }
}

// exp where the result is 0 (below -104, -inf) skips libmvec's slow lanes, and stays
// expf bit for bit: around the threshold, in the denormal results above it, at -inf and NaN.
TEST_F(AutofuseTest, ExpOfLargeNegativeArgumentsIsExpf) {
  Case c;
  Program& p = c.program;
  std::vector<float> x = {-INFINITY, NAN, 0.0f, -104.0f, std::nextafter(-104.0f, 0.0f), std::nextafter(-104.0f, -200.0f),
                          -103.97208f, -103.27893f};
  for (int i = 0; i <= 4000; ++i) x.push_back(-120.0f + 40.0f * static_cast<float>(i) / 4000.0f);
  const int64_t n = static_cast<int64_t>(x.size());
  p.shape = {n};
  p.inputs = {autofuse::Input{{n}}};
  c.inputs.push_back(Tensor::from_vector<float>({n}, x));
  p.code.push_back({Op::kLoad, -1, -1, 0, 0});
  p.code.push_back({Op::kExp, 0, -1, -1, 0});
  p.outputs.push_back({1, {n}});
  FusedNode fused(c);
  Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
  ASSERT_TRUE(interpreted.is_ok());
  std::optional<PreparedKernel> scalar = prepare(*fused.node, "cpu", 1, /*mode=*/{}, /*vector_math=*/false);
  ASSERT_TRUE(scalar.has_value());
  const Tensor expected = launch(interpreted.value(), c)[0];
  expect_same({launch(*scalar, c)[0]}, {expected}, 0, "scalar expf");
  std::optional<PreparedKernel> vector = prepare(*fused.node, "cpu", 1);
  ASSERT_TRUE(vector.has_value());
  const Tensor vectorised = launch(*vector, c)[0];
  for (int64_t i = 0; i < n; ++i) {
    const float a = vectorised.data<float>()[i], e = expected.data<float>()[i];
    if (std::isnan(e) || x[static_cast<size_t>(i)] < -104.0f) {
      EXPECT_EQ(std::memcmp(&a, &e, sizeof a) == 0 || (std::isnan(a) && std::isnan(e)), true) << "exp(" << x[i] << ")";
    } else {
      EXPECT_NEAR(a, e, 4e-7 * e) << "exp(" << x[i] << ")";
    }
  }
}

// With libmvec's vector functions: a well-conditioned chain of every transcendental op
// stays within a few ulp of the interpreter.
TEST_F(AutofuseTest, VectorMathStaysWithinAFewUlp) {
  Case c;
  Program& p = c.program;
  p.shape = {3, 1000};
  p.inputs = {autofuse::Input{{3, 1000}}};
  std::vector<float> x(3000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -3.0f + 6.0f * static_cast<float>(i) / 3000.0f;
  c.inputs.push_back(Tensor::from_vector<float>({3, 1000}, x));
  p.code.push_back({Op::kLoad, -1, -1, 0, 0});
  p.code.push_back({Op::kExp, 0, -1, -1, 0});  // %1, then log(exp(x)): positive arguments only
  int last = 1;
  for (Op op : {Op::kLog, Op::kTanh, Op::kErf, Op::kSin, Op::kCos, Op::kSigmoid}) {
    p.code.push_back({op, op == Op::kLog ? 1 : 0, -1, -1, 0});
    p.code.push_back({Op::kAdd, static_cast<int>(p.code.size()) - 1, last, -1, 0});
    last = static_cast<int>(p.code.size()) - 1;
  }
  p.outputs.push_back({last, {3, 1000}});
  ASSERT_TRUE(autofuse::validate(p).is_ok());
  FusedNode fused(c);
  Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
  ASSERT_TRUE(interpreted.is_ok());
  std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 2);
  ASSERT_TRUE(generated.has_value());
  EXPECT_NE(generate_source(p, 2).find("simd(\"notinbranch\")"), std::string::npos);
  expect_same(launch(*generated, c), launch(interpreted.value(), c), 1e-5, "vector math");
}

/// Program `load 0 -> outputs` over `values` of `dtype`, flat ({n}) or with inner axes
/// ({2, n/2}, a ReduceMax over axis 0 beside it): float16 converts a tile at once in the
/// first, element by element in the second.
template <typename T>
Case conversion_case(DataType dtype, const std::vector<T>& values, const std::vector<DataType>& outputs, bool lanes) {
  Case c;
  Program& p = c.program;
  const int64_t n = static_cast<int64_t>(values.size());
  p.shape = lanes ? std::vector<int64_t>{2, n / 2} : std::vector<int64_t>{n};
  p.inputs = {autofuse::Input{p.shape, dtype}};
  Tensor input = Tensor::zeros(dtype, p.shape);
  std::memcpy(input.raw_data(), values.data(), values.size() * sizeof(T));
  c.inputs.push_back(input);
  p.code.push_back({Op::kLoad, -1, -1, 0, 0});
  if (lanes) {
    p.reduced_axes = 1;
    p.inner_axes = 1;
    p.code.push_back({Op::kReduceMax, 0, -1, -1, 0});
    p.outputs.push_back({1, {1, n / 2}});
  }
  for (DataType out : outputs) p.outputs.push_back({0, p.shape, out});
  return c;
}

/// Generated code and interpreter on `c`, each output's bytes equal to `expected`'s.
void expect_bytes(const Case& c, size_t output, const void* expected, const std::string& what) {
  ASSERT_TRUE(autofuse::validate(c.program).is_ok()) << autofuse::print(c.program);
  FusedNode fused(c);
  Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
  ASSERT_TRUE(interpreted.is_ok()) << interpreted.status().to_string();
  std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 1);
  ASSERT_TRUE(generated.has_value());
  for (const PreparedKernel* kernel : {&interpreted.value(), &*generated}) {
    const Tensor out = launch(*kernel, c)[output];
    const auto* actual = static_cast<const unsigned char*>(out.raw_data());
    const auto* wanted = static_cast<const unsigned char*>(expected);
    const size_t element = out.byte_size() / static_cast<size_t>(out.element_count());
    for (size_t b = 0; b < out.byte_size(); b += element) {
      ASSERT_EQ(std::memcmp(actual + b, wanted + b, element), 0)
          << what << (kernel == &*generated ? " generated" : " interpreted") << ", element " << b / element;
    }
  }
}

// Every float16 bit pattern loads exactly (signalling NaNs stay signalling) and stores
// back (NaNs quiet), through the tile conversions and element by element.
TEST_F(AutofuseTest, Float16LoadsEveryBitPatternExactly) {
  std::vector<uint16_t> patterns(0x10000 + 6);  // a tail the vector loops leave
  for (size_t i = 0; i < patterns.size(); ++i) patterns[i] = static_cast<uint16_t>(i);
  std::vector<float> widened(patterns.size());
  std::vector<uint16_t> back(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    widened[i] = reference_kernels::float16_to_float(patterns[i]);
    back[i] = reference_kernels::float16_from_float(widened[i]);
  }
  for (bool lanes : {false, true}) {
    const Case c = conversion_case(DataType::kFloat16, patterns, {DataType::kFloat32, DataType::kFloat16}, lanes);
    const size_t first = lanes ? 1 : 0;
    expect_bytes(c, first, widened.data(), lanes ? "lanes float32" : "flat float32");
    expect_bytes(c, first + 1, back.data(), lanes ? "lanes float16" : "flat float16");
    if (HasFatalFailure()) return;
  }
}

// float32 values at and beside every midpoint between neighbouring float16s (ties to
// even), the overflow threshold, infinities, NaNs and float denormals round as
// float16_from_float does.
TEST_F(AutofuseTest, Float16StoresRoundToNearestEven) {
  std::vector<float> values;
  for (uint32_t low = 0; low < 0x7c00; ++low) {
    const float a = reference_kernels::float16_to_float(static_cast<uint16_t>(low));
    const float middle = (a + (low == 0x7bff ? 65536.0f : reference_kernels::float16_to_float(static_cast<uint16_t>(low + 1)))) / 2;
    for (float x : {a, middle, std::nextafter(middle, 0.0f), std::nextafter(middle, INFINITY)}) {
      values.push_back(x);
      values.push_back(-x);
    }
  }
  for (uint32_t bits : {0x7f800000u, 0xff800000u, 0x7f800001u, 0xffc00000u, 0x7fbfe000u, 0x00000001u, 0x807fffffu,
                        0x33000000u, 0x33000001u, 0x7f7fffffu}) {
    values.push_back(std::bit_cast<float>(bits));
  }
  if (values.size() % 2 != 0) values.push_back(1.0f);
  std::vector<uint16_t> expected(values.size());
  for (size_t i = 0; i < values.size(); ++i) expected[i] = reference_kernels::float16_from_float(values[i]);
  for (bool lanes : {false, true}) {
    expect_bytes(conversion_case(DataType::kFloat32, values, {DataType::kFloat16}, lanes), lanes ? 1 : 0,
                 expected.data(), lanes ? "lanes" : "flat");
    if (HasFatalFailure()) return;
  }
}

// With PATH emptied there is no compiler: no generated kernel, the interpreter runs.
TEST_F(AutofuseTest, WithoutACompilerTheInterpreterRuns) {
  std::mt19937 rng(77);
  Case c = random_case(rng);
  c.program.code.push_back({Op::kConst, -1, -1, -1, 0.123f});  // a source no other test compiles
  const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", "", 1);
  FusedNode fused(c);
  const std::optional<PreparedKernel> generated = prepare(*fused.node, "cpu", 1);
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(generated.has_value());
  Result<PreparedKernel> interpreted = reference_kernels::prepare(*fused.node, "cpu");
  ASSERT_TRUE(interpreted.is_ok());
  expect_same(launch(interpreted.value(), c), run_unfused(c), 0, "interpreted");
}

TEST_F(AutofuseTest, InterpretModeHasNoGeneratedKernel) {
  std::mt19937 rng(5);
  const Case c = random_case(rng);
  FusedNode fused(c, "interpret");
  EXPECT_FALSE(prepare(*fused.node, "cpu", 1).has_value());
}

}  // namespace
}  // namespace ge::cpu_autofuse
