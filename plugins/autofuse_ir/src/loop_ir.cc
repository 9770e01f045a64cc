#include "ge/autofuse/loop_ir.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace ge::autofuse {
namespace {

struct OpInfo {
  Op op;
  std::string_view name;
  int arity;
};

/// In the order of Op: info() indexes it by value (checked below).
constexpr std::array<OpInfo, 38> kOps = {{
    {Op::kLoad, "load", 0},         {Op::kConst, "const", 0},       {Op::kNeg, "neg", 1},
    {Op::kAbs, "abs", 1},           {Op::kExp, "exp", 1},           {Op::kLog, "log", 1},
    {Op::kSqrt, "sqrt", 1},         {Op::kReciprocal, "reciprocal", 1}, {Op::kRelu, "relu", 1},
    {Op::kSigmoid, "sigmoid", 1},   {Op::kTanh, "tanh", 1},         {Op::kErf, "erf", 1},
    {Op::kFloor, "floor", 1},       {Op::kCeil, "ceil", 1},         {Op::kSin, "sin", 1},
    {Op::kCos, "cos", 1},           {Op::kNot, "not", 1},           {Op::kCastBool, "cast_bool", 1},
    {Op::kAdd, "add", 2},           {Op::kSub, "sub", 2},           {Op::kMul, "mul", 2},
    {Op::kDiv, "div", 2},           {Op::kPow, "pow", 2},           {Op::kMax, "max", 2},
    {Op::kMin, "min", 2},           {Op::kEqual, "equal", 2},       {Op::kLess, "less", 2},
    {Op::kGreater, "greater", 2},   {Op::kLessOrEqual, "less_equal", 2}, {Op::kGreaterOrEqual, "greater_equal", 2},
    {Op::kAnd, "and", 2},           {Op::kOr, "or", 2},             {Op::kXor, "xor", 2},
    {Op::kWhere, "where", 3},       {Op::kReduceSum, "reduce_sum", 1}, {Op::kReduceMean, "reduce_mean", 1},
    {Op::kReduceMax, "reduce_max", 1}, {Op::kReduceMin, "reduce_min", 1},
}};

constexpr bool ops_in_order() {
  for (size_t i = 0; i < kOps.size(); ++i) {
    if (static_cast<size_t>(kOps[i].op) != i) return false;
  }
  return true;
}
static_assert(ops_in_order() && static_cast<size_t>(Op::kReduceMin) + 1 == kOps.size());

const OpInfo& info(Op op) { return kOps[static_cast<size_t>(op)]; }

bool is_input_type(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBool ||
         type == DataType::kInt64;
}
bool is_output_type(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBool;
}

/// " bool" for a dtype other than float32 (the default, not printed).
std::string dtype_text(DataType type) {
  return type == DataType::kFloat32 ? std::string() : " " + std::string(data_type_name(type));
}

/// An optional dtype word at words[from]: advances `from` past it.
bool parse_dtype(const std::vector<std::string_view>& words, size_t& from, DataType& type) {
  type = DataType::kFloat32;
  const std::string_view word = from < words.size() ? words[from] : std::string_view();
  if (word.empty() || word[0] == '-' || (word[0] >= '0' && word[0] <= '9')) return true;  // dims
  const std::optional<DataType> named = data_type_from_name(word);
  if (!named) return false;
  type = *named;
  ++from;
  return true;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += " " + std::to_string(d);
  return text;
}

std::string constant_text(float value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%a", static_cast<double>(value));
  return buffer;
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

bool parse_int(std::string_view word, int64_t& value) {
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size();
}

/// "%12" -> 12.
bool parse_value(std::string_view word, int& value) {
  if (word.size() < 2 || word[0] != '%') return false;
  int64_t v = 0;
  if (!parse_int(word.substr(1), v) || v < 0 || v > (1 << 24)) return false;
  value = static_cast<int>(v);
  return true;
}

bool parse_float(std::string_view word, float& value) {
  const std::string text(word);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || text.empty()) return false;
  value = static_cast<float>(v);
  return true;
}

bool parse_dims(const std::vector<std::string_view>& words, size_t from, std::vector<int64_t>& dims) {
  for (size_t i = from; i < words.size(); ++i) {
    int64_t d = 0;
    if (!parse_int(words[i], d)) return false;
    dims.push_back(d);
  }
  return true;
}

}  // namespace

std::string_view op_name(Op op) { return info(op).name; }
int arity(Op op) { return info(op).arity; }
bool is_reduction(Op op) {
  return op == Op::kReduceSum || op == Op::kReduceMean || op == Op::kReduceMax || op == Op::kReduceMin;
}
std::vector<int> operands(const Instruction& instruction) {
  const int n = arity(instruction.op);
  std::vector<int> list;
  if (n >= 1) list.push_back(instruction.a);
  if (n >= 2) list.push_back(instruction.b);
  if (n >= 3) list.push_back(instruction.c);
  return list;
}

size_t first_reduced_axis(const Program& program) {
  return program.shape.size() - static_cast<size_t>(program.inner_axes) - static_cast<size_t>(program.reduced_axes);
}
int64_t row_count(const Program& program) {
  const size_t first = first_reduced_axis(program), end = first + static_cast<size_t>(program.reduced_axes);
  return product(program.shape, 0, first) * product(program.shape, end, program.shape.size());
}
int64_t row_length(const Program& program) {
  const size_t first = first_reduced_axis(program);
  return product(program.shape, first, first + static_cast<size_t>(program.reduced_axes));
}

std::vector<bool> row_values(const Program& program) {
  std::vector<bool> row(program.code.size(), false);
  const size_t rank = program.shape.size();
  const size_t k = static_cast<size_t>(program.reduced_axes);
  const size_t first = first_reduced_axis(program);
  for (size_t i = 0; i < program.code.size(); ++i) {
    const Instruction& in = program.code[i];
    if (in.op == Op::kConst) {
      row[i] = true;
    } else if (in.op == Op::kLoad) {
      // A row value when the input is 1 (or absent) along every reduced axis.
      const std::vector<int64_t>& dims = program.inputs[static_cast<size_t>(in.input)].dims;
      bool constant_along_reduced = k > 0;
      for (size_t axis = first; axis < first + k && constant_along_reduced; ++axis) {
        const size_t from_end = rank - axis;
        if (from_end <= dims.size() && dims[dims.size() - from_end] != 1) constant_along_reduced = false;
      }
      row[i] = constant_along_reduced;
    } else if (is_reduction(in.op)) {
      row[i] = true;
    } else {
      row[i] = true;
      for (int operand : operands(in)) row[i] = row[i] && row[static_cast<size_t>(operand)];
    }
  }
  return row;
}

std::vector<bool> boolean_values(const Program& program) {
  std::vector<bool> boolean(program.code.size(), false);
  for (size_t i = 0; i < program.code.size(); ++i) {
    const Instruction& in = program.code[i];
    switch (in.op) {
      case Op::kLoad: boolean[i] = program.inputs[static_cast<size_t>(in.input)].dtype == DataType::kBool; break;
      case Op::kConst: boolean[i] = in.constant == 0.0f || in.constant == 1.0f; break;
      case Op::kNot: case Op::kCastBool: case Op::kEqual: case Op::kLess: case Op::kGreater:
      case Op::kLessOrEqual: case Op::kGreaterOrEqual: case Op::kAnd: case Op::kOr: case Op::kXor:
        boolean[i] = true;
        break;
      case Op::kWhere: boolean[i] = boolean[static_cast<size_t>(in.b)] && boolean[static_cast<size_t>(in.c)]; break;
      default: break;
    }
  }
  return boolean;
}

Status validate(const Program& program) {
  const size_t rank = program.shape.size();
  if (rank == 0) return invalid_argument("autofuse program: empty iteration shape");
  for (int64_t d : program.shape) {
    if (d <= 0) return invalid_argument("autofuse program: iteration shape has dim " + std::to_string(d));
  }
  if (program.reduced_axes < 0 || static_cast<size_t>(program.reduced_axes) > rank) {
    return invalid_argument("autofuse program: reduce " + std::to_string(program.reduced_axes) +
                            " is outside [0, " + std::to_string(rank) + "]");
  }
  const size_t k = static_cast<size_t>(program.reduced_axes);
  if (program.inner_axes < 0 || static_cast<size_t>(program.inner_axes) > rank - k ||
      (program.inner_axes > 0 && k == 0)) {
    return invalid_argument("autofuse program: inner " + std::to_string(program.inner_axes) +
                            " needs reduced axes and is outside [0, " + std::to_string(rank - k) + "]");
  }
  const size_t first = first_reduced_axis(program), inner_from = first + k;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const std::vector<int64_t>& dims = program.inputs[i].dims;
    const std::string name = "autofuse program: input " + std::to_string(i) + " [" + dims_text(dims) + " ]";
    if (!is_input_type(program.inputs[i].dtype)) {
      return invalid_argument(name + " is " + std::string(data_type_name(program.inputs[i].dtype)) +
                              ", expected float32, float16, bool or int64");
    }
    if (dims.size() > rank) return invalid_argument(name + " has more dims than the shape");
    bool along_reduced_ones = true, along_reduced_full = true, along_inner_ones = true, along_inner_full = true;
    for (size_t axis = 0; axis < rank; ++axis) {
      const size_t from_end = rank - axis;  // missing leading dims are 1
      const int64_t dim = from_end <= dims.size() ? dims[dims.size() - from_end] : 1;
      if (dim != 1 && dim != program.shape[axis]) {
        return invalid_argument(name + " does not broadcast to the shape [" + dims_text(program.shape) + " ]");
      }
      if (axis >= first && axis < inner_from) {
        along_reduced_ones = along_reduced_ones && dim == 1;
        along_reduced_full = along_reduced_full && dim == program.shape[axis];
      } else if (axis >= inner_from) {
        along_inner_ones = along_inner_ones && dim == 1;
        along_inner_full = along_inner_full && dim == program.shape[axis];
      }
    }
    if (k > 0 && !along_reduced_ones && !along_reduced_full) {
      return invalid_argument(name + " is neither constant nor complete along the reduced axes");
    }
    if (!along_inner_ones && !along_inner_full) {
      return invalid_argument(name + " is neither constant nor complete along the inner axes");
    }
  }
  std::vector<bool> row(program.code.size(), false);
  for (size_t i = 0; i < program.code.size(); ++i) {
    const Instruction& in = program.code[i];
    if (static_cast<size_t>(in.op) >= kOps.size()) {
      return invalid_argument("autofuse program: %" + std::to_string(i) + " has an unknown op");
    }
    const std::string where = "autofuse program: %" + std::to_string(i) + " (" + std::string(op_name(in.op)) + ")";
    if (in.op == Op::kLoad && (in.input < 0 || static_cast<size_t>(in.input) >= program.inputs.size())) {
      return invalid_argument(where + ": input " + std::to_string(in.input) + " does not exist");
    }
    for (int operand : operands(in)) {
      if (operand < 0 || static_cast<size_t>(operand) >= i) {
        return invalid_argument(where + ": operand %" + std::to_string(operand) + " is not an earlier value");
      }
    }
    if (is_reduction(in.op) && k == 0) return invalid_argument(where + ": a reduction in a program without reduced axes");
  }
  row = row_values(program);
  for (size_t i = 0; i < program.code.size(); ++i) {
    if (is_reduction(program.code[i].op) && row[static_cast<size_t>(program.code[i].a)]) {
      return invalid_argument("autofuse program: %" + std::to_string(i) + " reduces a row value");
    }
  }
  if (program.outputs.empty()) return invalid_argument("autofuse program: no outputs");
  const int64_t full = product(program.shape, 0, rank), rows = row_count(program);
  const std::vector<bool> boolean = boolean_values(program);
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const Output& out = program.outputs[i];
    if (out.value < 0 || static_cast<size_t>(out.value) >= program.code.size()) {
      return invalid_argument("autofuse program: output " + std::to_string(i) + " names no value");
    }
    if (!is_output_type(out.dtype)) {
      return invalid_argument("autofuse program: output " + std::to_string(i) + " is " +
                              std::string(data_type_name(out.dtype)) + ", expected float32, float16 or bool");
    }
    if (out.dtype == DataType::kBool && !boolean[static_cast<size_t>(out.value)]) {
      return invalid_argument("autofuse program: output " + std::to_string(i) + " is bool, its value %" +
                              std::to_string(out.value) + " is not always 0 or 1");
    }
    for (int64_t d : out.dims) {
      if (d <= 0) return invalid_argument("autofuse program: output " + std::to_string(i) + " has dim " + std::to_string(d));
    }
    const int64_t elements = product(out.dims, 0, out.dims.size());
    const bool is_row = row[static_cast<size_t>(out.value)] && k > 0;
    if (elements != (is_row ? rows : full)) {
      return invalid_argument("autofuse program: output " + std::to_string(i) + " has " + std::to_string(elements) +
                              " elements, its " + (is_row ? "row" : "full") + " value has " +
                              std::to_string(is_row ? rows : full));
    }
  }
  return Status::ok();
}

std::string print(const Program& program) {
  std::ostringstream text;
  text << "autofuse 1\nshape" << dims_text(program.shape) << "\nreduce " << program.reduced_axes;
  if (program.inner_axes > 0) text << " inner " << program.inner_axes;
  text << "\n";
  for (const Input& input : program.inputs) text << "input" << dtype_text(input.dtype) << dims_text(input.dims) << "\n";
  for (size_t i = 0; i < program.code.size(); ++i) {
    const Instruction& in = program.code[i];
    text << "%" << i << " = " << op_name(in.op);
    if (in.op == Op::kLoad) text << " " << in.input;
    if (in.op == Op::kConst) text << " " << constant_text(in.constant);
    for (int operand : operands(in)) text << " %" << operand;
    text << "\n";
  }
  for (const Output& out : program.outputs) {
    text << "output %" << out.value << dtype_text(out.dtype) << dims_text(out.dims) << "\n";
  }
  return text.str();
}

Result<Program> parse(std::string_view text) {
  Program program;
  int line_number = 0;
  bool header = false;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    const std::vector<std::string_view> w = split_words(line);
    if (w.empty()) continue;
    auto error = [&](const std::string& what) {
      return parse_error("autofuse program line " + std::to_string(line_number) + " '" + std::string(line) + "': " + what);
    };
    if (!header) {
      if (w.size() != 2 || w[0] != "autofuse" || w[1] != "1") return error("expected 'autofuse 1'");
      header = true;
    } else if (w[0] == "shape") {
      if (!parse_dims(w, 1, program.shape)) return error("bad dims");
    } else if (w[0] == "reduce") {
      int64_t k = 0, m = 0;
      const bool inner = w.size() == 4 && w[2] == "inner" && parse_int(w[3], m) && m > 0 && m <= 64;
      if ((w.size() != 2 && !inner) || !parse_int(w[1], k) || k < 0 || k > 64) {
        return error("expected 'reduce N' or 'reduce N inner M'");
      }
      program.reduced_axes = static_cast<int>(k);
      program.inner_axes = static_cast<int>(m);
    } else if (w[0] == "input") {
      Input input;
      size_t next = 1;
      if (!parse_dtype(w, next, input.dtype)) return error("unknown dtype '" + std::string(w[next]) + "'");
      if (!parse_dims(w, next, input.dims)) return error("bad dims");
      program.inputs.push_back(std::move(input));
    } else if (w[0] == "output") {
      Output out;
      size_t next = 2;
      if (w.size() < 2 || !parse_value(w[1], out.value)) return error("expected 'output %V [dtype] dims...'");
      if (!parse_dtype(w, next, out.dtype)) return error("unknown dtype '" + std::string(w[next]) + "'");
      if (!parse_dims(w, next, out.dims)) return error("expected 'output %V [dtype] dims...'");
      program.outputs.push_back(std::move(out));
    } else {
      int defined = 0;
      if (w.size() < 3 || !parse_value(w[0], defined) || w[1] != "=") return error("expected '%N = op ...'");
      if (static_cast<size_t>(defined) != program.code.size()) {
        return error("defines %" + std::to_string(defined) + ", expected %" + std::to_string(program.code.size()));
      }
      const OpInfo* found = nullptr;
      for (const OpInfo& op : kOps) {
        if (op.name == w[2]) found = &op;
      }
      if (found == nullptr) return error("unknown op '" + std::string(w[2]) + "'");
      Instruction in;
      in.op = found->op;
      size_t next = 3;
      if (in.op == Op::kLoad || in.op == Op::kConst) {
        if (w.size() != 4) return error("expected one operand");
        int64_t index = 0;
        if (in.op == Op::kLoad && (!parse_int(w[3], index) || index < 0 || index > (1 << 24))) return error("bad input index");
        if (in.op == Op::kConst && !parse_float(w[3], in.constant)) return error("bad constant");
        in.input = static_cast<int>(index);
      } else {
        if (w.size() != 3 + static_cast<size_t>(found->arity)) return error("expected " + std::to_string(found->arity) + " operands");
        for (int* operand : {&in.a, &in.b, &in.c}) {
          if (next == w.size()) break;
          if (!parse_value(w[next++], *operand)) return error("bad operand");
        }
      }
      program.code.push_back(in);
    }
  }
  if (!header) return parse_error("autofuse program: empty text");
  GE_RETURN_IF_ERROR(validate(program));
  return program;
}

}  // namespace ge::autofuse
