#pragma once
/// The loop IR of autofusion: one fused group of elementwise, broadcasting and
/// reduction ops (over one contiguous range of axes), as a straight-line SSA program over an iteration shape.
///
/// Every value computes in float32. An input may be stored as float32, float16 (loaded
/// exactly as float32), bool (loaded as 0 or 1) or int64 (rounded to the nearest float32,
/// as ONNX's Cast to float does: what an integer mask needs); an output as float32, float16 (rounded
/// to nearest even once, when stored) or bool (stored as one byte, 1 where the value is
/// not 0). Comparisons and logic ops yield 0 or 1 and treat
/// any value other than 0 (NaN included) as true, as a cast to bool does.
///
/// The group iterates over `shape`. Its `reduced_axes` axes before the innermost
/// `inner_axes` ones (0: the innermost axes) are the ones every reduction of the group
/// reduces; the other axes index "rows". A value is either *full* (one element per point
/// of `shape`) or *row* (one element per row: an input constant along the reduced axes, a
/// constant, a reduction's result, or arithmetic on row values only). An input is
/// broadcast to `shape` numpy-style (dims right-aligned, 1 or absent repeats); with inner
/// axes, it is whole or constant along them (the runners' vector lane).
/// The autofusion pass builds programs, the `ge_autofuse.Fused` op schema reads its output
/// descs from them, and backends run them (interpreted, or through generated code).
///
/// Text form (the `program` attribute of a Fused node, stored in .gem files):
///   autofuse 1
///   shape 1024 4096
///   reduce 1                   ("reduce 1 inner 2": a reduction over axis 1 of [N, C, H, W])
///   input 1024 4096
///   input 4096
///   input bool 1024 1          (a dtype word other than float32 precedes the dims)
///   %0 = load 0
///   %1 = mul %0 %0
///   %2 = reduce_mean %1
///   %3 = add %2 const 0x1.4f8b58p-17
///   output %3 1024 1
///   output %9 bool 1024 4096

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ge/data_type.h"
#include "ge/status.h"

namespace ge::autofuse {

enum class Op : uint8_t {
  // leaves
  kLoad,   ///< element of input `input`
  kConst,  ///< `constant`
  // unary
  kNeg, kAbs, kExp, kLog, kSqrt, kReciprocal, kRelu, kSigmoid, kTanh, kErf, kFloor, kCeil, kSin, kCos,
  kNot,       ///< 1 where the operand is 0, else 0
  kCastBool,  ///< 1 where the operand is not 0 (NaN included), else 0
  // binary
  kAdd, kSub, kMul, kDiv, kPow, kMax, kMin,
  kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual,  ///< 1 or 0; false with a NaN operand
  kAnd, kOr, kXor,                                         ///< of the operands' truth (not 0)
  // ternary
  kWhere,  ///< `b` where `a` is not 0, else `c`
  // reductions over the reduced axes (full operand, row result)
  kReduceSum, kReduceMean, kReduceMax, kReduceMin,
};

/// Operands: `a` (unary, reductions), `b` (binary) and `c` (kWhere) name earlier
/// instructions.
struct Instruction {
  Op op = Op::kConst;
  int a = -1, b = -1;
  int input = -1;      ///< kLoad
  float constant = 0;  ///< kConst
  int c = -1;
};

struct Input {
  std::vector<int64_t> dims;
  DataType dtype = DataType::kFloat32;  ///< float32, float16, bool or int64
};

struct Output {
  int value = -1;
  std::vector<int64_t> dims;  ///< the output tensor's dims (full: elements of shape; row: rows)
  DataType dtype = DataType::kFloat32;  ///< float32, float16, or bool for a value always 0 or 1
};

struct Program {
  std::vector<int64_t> shape;
  int reduced_axes = 0;
  int inner_axes = 0;  ///< axes after the reduced ones, not reduced (only with reduced_axes > 0)
  std::vector<Input> inputs;
  std::vector<Instruction> code;             ///< instruction i defines value i
  std::vector<Output> outputs;
};

/// "add", "reduce_mean", ...
std::string_view op_name(Op op);
/// 0 for leaves, 1 for unary ops and reductions, 2 for binary ops, 3 for kWhere.
int arity(Op op);
bool is_reduction(Op op);
/// The operands of `instruction`, arity(op) of them.
std::vector<int> operands(const Instruction& instruction);

/// The text form above; parse(print(p)) == p, constants bit-exact (hex floats).
std::string print(const Program& program);
/// Parses and validates. Errors are kParseError / kInvalidArgument naming the line.
Result<Program> parse(std::string_view text);

/// Checks every invariant the runners rely on: dims positive, inputs broadcast to the
/// shape and along the reduced axes (and along the inner axes) either match them or are
/// 1, operands defined before use and in range, reductions only with reduced_axes > 0 and over full values, outputs'
/// element counts matching their level, dtypes the runners support, bool outputs only of
/// values that are always 0 or 1.
Status validate(const Program& program);

/// Per value: whether it is a row value (see above). For a valid program.
std::vector<bool> row_values(const Program& program);

/// The first reduced axis (rank - inner_axes - reduced_axes) of a valid program.
size_t first_reduced_axis(const Program& program);

/// Per value: whether it is always exactly 0 or 1 (a bool load, a constant 0 or 1, a
/// comparison or logic op, kWhere between such values). For a valid program.
std::vector<bool> boolean_values(const Program& program);

/// Rows and elements per row of the iteration: product of the other / the reduced dims.
int64_t row_count(const Program& program);
int64_t row_length(const Program& program);

}  // namespace ge::autofuse
