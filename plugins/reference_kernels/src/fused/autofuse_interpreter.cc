// ge_autofuse::Fused: a group the autofusion pass fused, run by interpreting its loop IR
// (ge/autofuse/loop_ir.h) along the plan of ge/autofuse/loop_plan.h. Each row is walked
// in chunks (a program with reductions: the whole row at once; with inner axes: the
// whole reduced extent times a chunk of lanes); every instruction runs over the chunk
// before the next one, so the loop per instruction is tight. The formulas
// are the standalone kernels' (float arithmetic, Pow and reductions through double, NaN
// propagating through Max/Min), so an interpreted group gives the values of the chain it
// replaced. Comparisons and logic give 0 or 1 (any value but 0 is true); bool inputs load
// as 0 or 1, float16 inputs exactly as float32, int64 inputs rounded to nearest as Cast
// does; bool outputs store 1 where the value is not 0, float16 outputs round to nearest
// even. The cpu backend runs generated code instead when it can compile it.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "fused/registration.h"
#include "ge/autofuse/loop_ir.h"
#include "ge/autofuse/loop_plan.h"
#include "ge/reference_kernels/half_float.h"

namespace ge::reference_kernels {
namespace {

using autofuse::Op;

struct InterpreterParams {
  autofuse::Program program;
  autofuse::LoopPlan plan;
  int64_t chunk = 0;  // elements per evaluation step of a full value
};

constexpr int64_t kChunk = 1024;

float unary(Op op, float x) {
  switch (op) {
    case Op::kNeg: return -x;
    case Op::kAbs: return std::fabs(x);
    case Op::kExp: return std::exp(x);
    case Op::kLog: return std::log(x);
    case Op::kSqrt: return std::sqrt(x);
    case Op::kReciprocal: return 1.0f / x;
    case Op::kRelu: return x < 0.0f ? 0.0f : x;
    case Op::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Op::kTanh: return std::tanh(x);
    case Op::kErf: return std::erf(x);
    case Op::kFloor: return std::floor(x);
    case Op::kCeil: return std::ceil(x);
    case Op::kSin: return std::sin(x);
    case Op::kCos: return std::cos(x);
    case Op::kNot: return x == 0.0f ? 1.0f : 0.0f;
    case Op::kCastBool: return x != 0.0f ? 1.0f : 0.0f;
    default: return x;
  }
}

float binary(Op op, float a, float b) {
  switch (op) {
    case Op::kAdd: return a + b;
    case Op::kSub: return a - b;
    case Op::kMul: return a * b;
    case Op::kDiv: return a / b;
    case Op::kPow: return static_cast<float>(std::pow(static_cast<double>(a), static_cast<double>(b)));
    case Op::kMax: return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? b : a);
    case Op::kMin: return std::isnan(a) ? a : std::isnan(b) ? b : (b < a ? b : a);
    case Op::kEqual: return a == b ? 1.0f : 0.0f;
    case Op::kLess: return a < b ? 1.0f : 0.0f;
    case Op::kGreater: return a > b ? 1.0f : 0.0f;
    case Op::kLessOrEqual: return a <= b ? 1.0f : 0.0f;
    case Op::kGreaterOrEqual: return a >= b ? 1.0f : 0.0f;
    case Op::kAnd: return (a != 0.0f) && (b != 0.0f) ? 1.0f : 0.0f;
    case Op::kOr: return (a != 0.0f) || (b != 0.0f) ? 1.0f : 0.0f;
    case Op::kXor: return (a != 0.0f) != (b != 0.0f) ? 1.0f : 0.0f;
    default: return a;
  }
}

float reduce(Op op, const float* x, int64_t n) {
  if (op == Op::kReduceMax || op == Op::kReduceMin) {
    float best = x[0];
    bool nan = false;
    for (int64_t j = 0; j < n; ++j) {
      nan = nan || std::isnan(x[j]);
      best = op == Op::kReduceMax ? std::max(best, x[j]) : std::min(best, x[j]);
    }
    return nan ? std::numeric_limits<float>::quiet_NaN() : best;
  }
  double sum = 0.0;
  for (int64_t j = 0; j < n; ++j) sum += static_cast<double>(x[j]);
  return static_cast<float>(op == Op::kReduceMean ? sum / static_cast<double>(n) : sum);
}

/// Element `index` of `input`, as the program computes with it.
float load_element(DataType dtype, const void* input, int64_t index) {
  switch (dtype) {
    case DataType::kBool: return static_cast<const unsigned char*>(input)[index] != 0 ? 1.0f : 0.0f;
    case DataType::kFloat16: return float16_to_float(static_cast<const uint16_t*>(input)[index]);
    case DataType::kInt64: return static_cast<float>(static_cast<const int64_t*>(input)[index]);
    default: return static_cast<const float*>(input)[index];
  }
}

void load_elements(DataType dtype, const void* input, int64_t offset, int64_t n, float* out) {
  if (dtype == DataType::kFloat32) {
    std::memcpy(out, static_cast<const float*>(input) + offset, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  if (dtype == DataType::kFloat16) {
    const uint16_t* first = static_cast<const uint16_t*>(input) + offset;
    float16_to_float(std::span<const uint16_t>(first, static_cast<size_t>(n)), std::span<float>(out, static_cast<size_t>(n)));
    return;
  }
  for (int64_t j = 0; j < n; ++j) out[j] = load_element(dtype, input, offset + j);
}

/// Stores `n` values from `values` (or `n` copies of `*values` when `repeat`) at `index`.
void store_elements(DataType dtype, void* output, int64_t index, int64_t n, const float* values, bool repeat) {
  if (dtype == DataType::kBool) {
    auto* y = static_cast<unsigned char*>(output) + index;
    for (int64_t j = 0; j < n; ++j) y[j] = values[repeat ? 0 : j] != 0.0f ? 1 : 0;
  } else if (dtype == DataType::kFloat16 && repeat) {
    std::fill_n(static_cast<uint16_t*>(output) + index, n, float16_from_float(values[0]));
  } else if (dtype == DataType::kFloat16) {
    float16_from_float(std::span<const float>(values, static_cast<size_t>(n)),
                       std::span<uint16_t>(static_cast<uint16_t*>(output) + index, static_cast<size_t>(n)));
  } else if (repeat) {
    std::fill_n(static_cast<float*>(output) + index, n, values[0]);
  } else {
    std::memcpy(static_cast<float*>(output) + index, values, static_cast<size_t>(n) * sizeof(float));
  }
}

/// reduce() over `n` elements `stride` apart.
float reduce_strided(Op op, const float* x, int64_t n, int64_t stride, float* scratch) {
  for (int64_t j = 0; j < n; ++j) scratch[j] = x[j * stride];
  return reduce(op, scratch, n);
}

/// A program with inner axes: per row of the outer dims and chunk of `p.chunk` lanes, a
/// full value is inner x chunk elements (element (i, lane) at i * chunk + lane), a row
/// value one per lane. Reductions run along i for each lane, in order, as the standalone
/// kernels do.
int interpret_lanes(const InterpreterParams& p, const KernelArgs& args) {
  const autofuse::Program& program = p.program;
  const autofuse::LoopPlan& plan = p.plan;
  const size_t values = program.code.size();
  const int64_t block = plan.inner * p.chunk;
  int64_t* offsets = static_cast<int64_t*>(args.workspace);
  float* blocks = reinterpret_cast<float*>(offsets + program.inputs.size());
  float* scratch = blocks + values * static_cast<size_t>(block);
  auto data = [&](int value) { return blocks + static_cast<size_t>(value) * static_cast<size_t>(block); };
  for (int64_t row = 0; row < plan.rows; ++row) {
    for (size_t i = 0; i < program.inputs.size(); ++i) offsets[i] = autofuse::row_offset(plan, i, row);
    for (int64_t lane0 = 0; lane0 < plan.lanes; lane0 += p.chunk) {
      const int64_t n = std::min(p.chunk, plan.lanes - lane0);
      for (size_t v = 0; v < values; ++v) {
        const autofuse::Instruction& in = program.code[v];
        float* out = data(static_cast<int>(v));
        const int64_t extent = plan.per_row[v] ? 1 : plan.inner;
        // Element (i, j) of `value` as an operand of this value (a row value repeats along i).
        auto at = [&](int value, int64_t i, int64_t j) {
          return data(value)[(plan.per_row[static_cast<size_t>(value)] ? 0 : i * p.chunk) + j];
        };
        if (autofuse::is_reduction(in.op)) {
          for (int64_t j = 0; j < n; ++j) out[j] = reduce_strided(in.op, data(in.a) + j, plan.inner, p.chunk, scratch);
          continue;
        }
        for (int64_t i = 0; i < extent; ++i) {
          float* y = out + i * p.chunk;
          if (in.op == Op::kConst) {
            std::fill_n(y, n, in.constant);
          } else if (in.op == Op::kLoad) {
            const size_t input = static_cast<size_t>(in.input);
            const autofuse::InputWalk& walk = plan.inputs[input];
            const int64_t base = offsets[input] + i * walk.inner_stride;
            for (int64_t j = 0; j < n; ++j) {
              y[j] = load_element(program.inputs[input].dtype, args.inputs[input],
                                  base + (walk.contiguous_lanes ? lane0 + j : 0));
            }
          } else if (in.op == Op::kWhere) {
            for (int64_t j = 0; j < n; ++j) y[j] = at(in.a, i, j) != 0.0f ? at(in.b, i, j) : at(in.c, i, j);
          } else if (autofuse::arity(in.op) == 1) {
            for (int64_t j = 0; j < n; ++j) y[j] = unary(in.op, at(in.a, i, j));
          } else {
            for (int64_t j = 0; j < n; ++j) y[j] = binary(in.op, at(in.a, i, j), at(in.b, i, j));
          }
        }
      }
      for (size_t o = 0; o < program.outputs.size(); ++o) {
        const size_t v = static_cast<size_t>(program.outputs[o].value);
        const DataType dtype = program.outputs[o].dtype;
        if (plan.output_per_row[o]) {
          store_elements(dtype, args.outputs[o], row * plan.lanes + lane0, n, data(static_cast<int>(v)), false);
          continue;
        }
        for (int64_t i = 0; i < plan.inner; ++i) {
          const float* x = data(static_cast<int>(v)) + (plan.per_row[v] ? 0 : i * p.chunk);
          store_elements(dtype, args.outputs[o], (row * plan.inner + i) * plan.lanes + lane0, n, x, false);
        }
      }
    }
  }
  return kKernelOk;
}

int interpret(const KernelArgs& args) {
  const auto& p = *static_cast<const InterpreterParams*>(args.params);
  const autofuse::Program& program = p.program;
  const autofuse::LoopPlan& plan = p.plan;
  const size_t values = program.code.size();
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    if (args.inputs[i] == nullptr) return kKernelMissingAddress;
  }
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    if (args.outputs[i] == nullptr) return kKernelMissingAddress;
  }
  if (args.workspace == nullptr) return kKernelMissingAddress;
  if (program.inner_axes > 0) return interpret_lanes(p, args);
  // Workspace: the inputs' row offsets, one chunk per value, then one row scalar per value.
  int64_t* offsets = static_cast<int64_t*>(args.workspace);
  float* chunks = reinterpret_cast<float*>(offsets + program.inputs.size());
  float* scalars = chunks + values * static_cast<size_t>(p.chunk);
  for (int64_t row = 0; row < plan.rows; ++row) {
    for (size_t i = 0; i < program.inputs.size(); ++i) offsets[i] = autofuse::row_offset(plan, i, row);
    for (int64_t begin = 0; begin < plan.inner; begin += p.chunk) {
      const int64_t n = std::min(p.chunk, plan.inner - begin);
      for (size_t v = 0; v < values; ++v) {
        const autofuse::Instruction& in = program.code[v];
        float* out = chunks + v * static_cast<size_t>(p.chunk);
        if (plan.per_row[v]) {
          if (begin > 0) continue;  // computed at the row's first chunk
          float& s = scalars[v];
          if (in.op == Op::kConst) {
            s = in.constant;
          } else if (in.op == Op::kLoad) {
            s = load_element(program.inputs[static_cast<size_t>(in.input)].dtype, args.inputs[in.input],
                             offsets[static_cast<size_t>(in.input)]);
          } else if (autofuse::is_reduction(in.op)) {
            s = reduce(in.op, chunks + static_cast<size_t>(in.a) * static_cast<size_t>(p.chunk), n);
          } else if (in.op == Op::kWhere) {
            s = scalars[in.a] != 0.0f ? scalars[in.b] : scalars[in.c];
          } else if (autofuse::arity(in.op) == 1) {
            s = unary(in.op, scalars[in.a]);
          } else {
            s = binary(in.op, scalars[in.a], scalars[in.b]);
          }
          continue;
        }
        if (in.op == Op::kLoad) {
          load_elements(program.inputs[static_cast<size_t>(in.input)].dtype, args.inputs[in.input],
                        offsets[static_cast<size_t>(in.input)] + begin, n, out);
        } else if (in.op == Op::kWhere) {
          auto operand = [&](int value) -> const float* {
            if (plan.per_row[static_cast<size_t>(value)]) return nullptr;  // its scalar
            return chunks + static_cast<size_t>(value) * static_cast<size_t>(p.chunk);
          };
          const float *c = operand(in.a), *x = operand(in.b), *y = operand(in.c);
          const float sc = scalars[in.a], sx = scalars[in.b], sy = scalars[in.c];
          for (int64_t j = 0; j < n; ++j) out[j] = (c ? c[j] : sc) != 0.0f ? (x ? x[j] : sx) : (y ? y[j] : sy);
        } else if (autofuse::arity(in.op) == 1) {
          const float* a = chunks + static_cast<size_t>(in.a) * static_cast<size_t>(p.chunk);
          for (int64_t j = 0; j < n; ++j) out[j] = unary(in.op, a[j]);
        } else {
          const bool a_row = plan.per_row[static_cast<size_t>(in.a)], b_row = plan.per_row[static_cast<size_t>(in.b)];
          const float* a = chunks + static_cast<size_t>(in.a) * static_cast<size_t>(p.chunk);
          const float* b = chunks + static_cast<size_t>(in.b) * static_cast<size_t>(p.chunk);
          const float sa = scalars[in.a], sb = scalars[in.b];
          for (int64_t j = 0; j < n; ++j) out[j] = binary(in.op, a_row ? sa : a[j], b_row ? sb : b[j]);
        }
      }
      for (size_t o = 0; o < program.outputs.size(); ++o) {
        const size_t v = static_cast<size_t>(program.outputs[o].value);
        const DataType dtype = program.outputs[o].dtype;
        if (plan.output_per_row[o]) {
          if (begin == 0) store_elements(dtype, args.outputs[o], row, 1, &scalars[v], true);
        } else if (plan.per_row[v]) {
          store_elements(dtype, args.outputs[o], row * plan.inner + begin, n, &scalars[v], true);
        } else {
          store_elements(dtype, args.outputs[o], row * plan.inner + begin, n, chunks + v * static_cast<size_t>(p.chunk),
                         false);
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_fused(const KernelContext& context) {
  const Node& node = context.node;
  GE_ASSIGN_OR_RETURN(std::string text, string_attribute(context, "program", ""));
  Result<autofuse::Program> parsed = autofuse::parse(text);
  if (!parsed.is_ok()) return invalid_argument(node.describe() + ": attribute 'program': " + parsed.status().message());
  InterpreterParams params;
  params.program = std::move(parsed).value();
  const autofuse::Program& program = params.program;
  if (node.input_count() != program.inputs.size() || node.output_count() != program.outputs.size()) {
    return invalid_argument(node.describe() + ": its program has " + std::to_string(program.inputs.size()) +
                            " inputs and " + std::to_string(program.outputs.size()) + " outputs");
  }
  for (size_t i = 0; i < node.input_count(); ++i) {
    const TensorDesc& desc = node.input(i)->desc();
    const TensorDesc expected = TensorDesc::of(program.inputs[i].dtype, program.inputs[i].dims);
    if (desc.dtype != expected.dtype || desc.static_dims() != program.inputs[i].dims) {
      return invalid_argument(node.describe() + ": input " + std::to_string(i) + " is " + desc.to_string() +
                              ", its program expects " + expected.to_string());
    }
  }
  for (size_t i = 0; i < node.output_count(); ++i) {
    const TensorDesc& desc = node.output(i)->desc();
    const TensorDesc expected = TensorDesc::of(program.outputs[i].dtype, program.outputs[i].dims);
    if (desc.dtype != expected.dtype || desc.static_dims() != program.outputs[i].dims) {
      return invalid_argument(node.describe() + ": output " + std::to_string(i) + " is " + desc.to_string() +
                              ", its program gives " + expected.to_string());
    }
  }
  params.plan = autofuse::plan_loops(program);
  size_t workspace = 0;
  if (program.inner_axes > 0) {
    // Lanes per step: about kChunk elements of a full value (at least 16 lanes).
    params.chunk = std::min(params.plan.lanes, std::max<int64_t>(16, kChunk / params.plan.inner));
    workspace = program.inputs.size() * sizeof(int64_t) +
                (program.code.size() * static_cast<size_t>(params.plan.inner * params.chunk) +
                 static_cast<size_t>(params.plan.inner)) * sizeof(float);
  } else {
    params.chunk = program.reduced_axes > 0 ? params.plan.inner : std::min(kChunk, params.plan.inner);
    workspace = program.inputs.size() * sizeof(int64_t) +
                program.code.size() * (static_cast<size_t>(params.chunk) + 1) * sizeof(float);
  }
  PreparedKernel kernel = make_kernel(context, &interpret, std::move(params), workspace);
  kernel.name = std::string(context.backend) + ".ge_autofuse.Fused";
  return kernel;
}

}  // namespace

void add_autofuse_kernels(std::vector<OpKernel>& table) {
  // Any dtypes: prepare_fused checks every input and output against the program.
  table.push_back({"ge_autofuse::Fused", {}, &prepare_fused});
}

}  // namespace ge::reference_kernels
