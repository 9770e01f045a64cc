#pragma once
/// The loop IR of autofusion: one fused group of float32 elementwise, broadcasting and
/// innermost-axis reduction ops, as a straight-line SSA program over an iteration shape.
///
/// The group iterates over `shape`. Its innermost `reduced_axes` axes are the ones every
/// reduction of the group reduces; the rest are "rows". A value is either *full* (one
/// element per point of `shape`) or *row* (one element per row: an input constant along
/// the reduced axes, a constant, a reduction's result, or arithmetic on row values only).
/// An input is broadcast to `shape` numpy-style (dims right-aligned, 1 or absent repeats).
/// The autofusion pass builds programs, the `ge_autofuse.Fused` op schema reads its output
/// descs from them, and backends run them (interpreted, or through generated code).
///
/// Text form (the `program` attribute of a Fused node, stored in .gem files):
///   autofuse 1
///   shape 1024 4096
///   reduce 1
///   input 1024 4096
///   input 4096
///   %0 = load 0
///   %1 = mul %0 %0
///   %2 = reduce_mean %1
///   %3 = add %2 const 0x1.4f8b58p-17
///   output %3 1024 1

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ge/status.h"

namespace ge::autofuse {

enum class Op : uint8_t {
  // leaves
  kLoad,   ///< element of input `input`
  kConst,  ///< `constant`
  // unary
  kNeg, kAbs, kExp, kLog, kSqrt, kReciprocal, kRelu, kSigmoid, kTanh, kErf, kFloor, kCeil, kSin, kCos,
  // binary
  kAdd, kSub, kMul, kDiv, kPow, kMax, kMin,
  // reductions over the reduced axes (full operand, row result)
  kReduceSum, kReduceMean, kReduceMax, kReduceMin,
};

/// Operands: `a` (unary, reductions) and `b` (binary) name earlier instructions.
struct Instruction {
  Op op = Op::kConst;
  int a = -1, b = -1;
  int input = -1;      ///< kLoad
  float constant = 0;  ///< kConst
};

struct Output {
  int value = -1;
  std::vector<int64_t> dims;  ///< the output tensor's dims (full: elements of shape; row: rows)
};

struct Program {
  std::vector<int64_t> shape;
  int reduced_axes = 0;
  std::vector<std::vector<int64_t>> inputs;  ///< each input's dims
  std::vector<Instruction> code;             ///< instruction i defines value i
  std::vector<Output> outputs;
};

/// "add", "reduce_mean", ...
std::string_view op_name(Op op);
/// 0 for leaves, 1 for unary ops and reductions, 2 for binary ops.
int arity(Op op);
bool is_reduction(Op op);

/// The text form above; parse(print(p)) == p, constants bit-exact (hex floats).
std::string print(const Program& program);
/// Parses and validates. Errors are kParseError / kInvalidArgument naming the line.
Result<Program> parse(std::string_view text);

/// Checks every invariant the runners rely on: dims positive, inputs broadcast to the
/// shape and along the reduced axes either match them or are 1, operands defined before
/// use and in range, reductions only with reduced_axes > 0 and over full values, outputs'
/// element counts matching their level.
Status validate(const Program& program);

/// Per value: whether it is a row value (see above). For a valid program.
std::vector<bool> row_values(const Program& program);

/// Rows and elements per row of the iteration: product of the outer / reduced dims.
int64_t row_count(const Program& program);
int64_t row_length(const Program& program);

}  // namespace ge::autofuse
