#include "autofuse_codegen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "ge/autofuse/loop_plan.h"

namespace ge::cpu_autofuse {
namespace {

using autofuse::Instruction;
using autofuse::Op;

/// Elements of one tile of a program without reductions (a row of a program with them is
/// one tile): large enough to amortise the per-tile offsets, small enough to split well.
constexpr int64_t kTileElements = 16384;

/// Stack bytes per tile for values kept from one loop over a row to the next (see
/// Generator::keep_costly_values).
constexpr int64_t kKeptBytes = 64 * 1024;

/// Lanes per tile of a program with inner axes (the vector lanes of its loops).
constexpr int64_t kLaneTile = 256;

/// Stack bytes per tile for float16 inputs converted to float32 before the tile's loops
/// and float16 outputs rounded after them (see Generator::buffer_float16).
constexpr int64_t kFloat16BufferBytes = 128 * 1024;

/// The float16 conversions of the generated code, bit for bit the interpreter's
/// (ge/minifloat.h): one element branch-free, so that the loops around it vectorise, and
/// a tile at once through F16C or AVX-512 where -march=native has them (vcvtph2ps quiets
/// a signalling NaN, which the interpreter keeps, so the loads put the quiet bit back).
constexpr const char* kFloat16Functions = R"(inline float ge_h2f(unsigned short bits) {
  const unsigned magnitude = (bits & 0x7fffu) << 13, exponent = magnitude & 0x0f800000u;
  const unsigned normal = magnitude + (exponent == 0x0f800000u ? 0x70000000u : 0x38000000u);
  const float subnormal = __builtin_bit_cast(float, magnitude + 0x38800000u) - 0x1p-14f;
  const unsigned result = exponent == 0 ? __builtin_bit_cast(unsigned, subnormal) : normal;
  return __builtin_bit_cast(float, result | ((bits & 0x8000u) << 16));
}
inline unsigned short ge_f2h(float value) {
  const unsigned bits = __builtin_bit_cast(unsigned, value), magnitude = bits & 0x7fffffffu;
  const unsigned normal = (magnitude + 0xfffu + ((magnitude >> 13) & 1u) - (112u << 23)) >> 13;
  const unsigned exponent = magnitude >> 23 < 101u ? 101u : magnitude >> 23 > 112u ? 112u : magnitude >> 23;
  const unsigned shift = 126u - exponent, mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const unsigned subnormal = (mantissa + ((1u << (shift - 1)) - 1u) + ((mantissa >> shift) & 1u)) >> shift;
  unsigned result = magnitude < 0x38800000u ? subnormal : normal;
  result = magnitude >= 0x477ff000u ? 0x7c00u : result;
  result = magnitude > 0x7f800000u ? 0x7e00u | ((magnitude >> 13) & 0x3ffu) : result;
  return static_cast<unsigned short>(((bits >> 16) & 0x8000u) | result);
}
void ge_load_f16(const unsigned short* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__) && defined(__F16C__)
  for (; i + 16 <= n; i += 16) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m512i wide = _mm512_cvtepu16_epi32(half), value = _mm512_castps_si512(_mm512_cvtph_ps(half));
    const __mmask16 signalling = _mm512_cmpeq_epi32_mask(_mm512_and_si512(wide, _mm512_set1_epi32(0x7e00)),
                                                         _mm512_set1_epi32(0x7c00)) &
                                 _mm512_test_epi32_mask(wide, _mm512_set1_epi32(0x1ff));
    _mm512_storeu_si512(out + i, _mm512_mask_xor_epi32(value, signalling, value, _mm512_set1_epi32(0x400000)));
  }
#elif defined(__AVX2__) && defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m256i wide = _mm256_cvtepu16_epi32(half), value = _mm256_castps_si256(_mm256_cvtph_ps(half));
    const __m256i signalling = _mm256_andnot_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(wide, _mm256_set1_epi32(0x1ff)), _mm256_setzero_si256()),
        _mm256_cmpeq_epi32(_mm256_and_si256(wide, _mm256_set1_epi32(0x7e00)), _mm256_set1_epi32(0x7c00)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_xor_si256(value, _mm256_and_si256(signalling, _mm256_set1_epi32(0x400000))));
  }
#endif
#pragma omp simd
  for (int64_t k = i; k < n; ++k) out[k] = ge_h2f(in[k]);
}
void ge_store_f16(const float* in, unsigned short* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__) && defined(__F16C__)
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
#elif defined(__AVX2__) && defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
#endif
#pragma omp simd
  for (int64_t k = i; k < n; ++k) out[k] = ge_f2h(in[k]);
}
)";

/// Ops whose result is cheaper to keep in a row buffer than to compute again.
bool costly(Op op) {
  return op == Op::kExp || op == Op::kLog || op == Op::kTanh || op == Op::kErf || op == Op::kSin || op == Op::kCos ||
         op == Op::kSigmoid || op == Op::kPow;
}

std::string float_literal(float value) {
  if (std::isnan(value)) return "__builtin_nanf(\"\")";
  if (std::isinf(value)) return value > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%af", static_cast<double>(value));
  return buffer;
}

std::string v(int index) { return "v" + std::to_string(index); }

/// The expression computing instruction `index` from already-named operands.
std::string expression(const autofuse::Program& program, int index, const std::string& load) {
  const Instruction& in = program.code[static_cast<size_t>(index)];
  const std::string a = v(in.a), b = v(in.b), c = v(in.c);
  auto truth = [](const std::string& condition) { return "(" + condition + " ? 1.0f : 0.0f)"; };
  switch (in.op) {
    case Op::kLoad: return load;
    case Op::kConst: return float_literal(in.constant);
    case Op::kNeg: return "-" + a;
    case Op::kAbs: return "__builtin_fabsf(" + a + ")";
    case Op::kExp: return "ge_exp(" + a + ")";
    case Op::kLog: return "logf(" + a + ")";
    case Op::kSqrt: return "__builtin_sqrtf(" + a + ")";
    case Op::kReciprocal: return "1.0f / " + a;
    case Op::kRelu: return a + " < 0.0f ? 0.0f : " + a;
    case Op::kSigmoid: return "1.0f / (1.0f + ge_exp(-" + a + "))";
    case Op::kTanh: return "tanhf(" + a + ")";
    case Op::kErf: return "erff(" + a + ")";
    case Op::kFloor: return "__builtin_floorf(" + a + ")";
    case Op::kCeil: return "__builtin_ceilf(" + a + ")";
    case Op::kSin: return "sinf(" + a + ")";
    case Op::kCos: return "cosf(" + a + ")";
    case Op::kNot: return truth(a + " == 0.0f");
    case Op::kCastBool: return truth(a + " != 0.0f");
    case Op::kAdd: return a + " + " + b;
    case Op::kSub: return a + " - " + b;
    case Op::kMul: return a + " * " + b;
    case Op::kDiv: return a + " / " + b;
    case Op::kPow: {
      // x^2 through double rounds like x * x in float (the square is exact in double).
      const Instruction& exponent = program.code[static_cast<size_t>(in.b)];
      if (exponent.op == Op::kConst && exponent.constant == 2.0f) return a + " * " + a;
      if (exponent.op == Op::kConst && exponent.constant == 1.0f) return a;
      return "ge_pow(" + a + ", " + b + ")";
    }
    case Op::kMax: return "ge_max(" + a + ", " + b + ")";
    case Op::kMin: return "ge_min(" + a + ", " + b + ")";
    case Op::kEqual: return truth(a + " == " + b);
    case Op::kLess: return truth(a + " < " + b);
    case Op::kGreater: return truth(a + " > " + b);
    case Op::kLessOrEqual: return truth(a + " <= " + b);
    case Op::kGreaterOrEqual: return truth(a + " >= " + b);
    // Bitwise on the truths: no branch in the vector loop.
    case Op::kAnd: return truth("(" + a + " != 0.0f) & (" + b + " != 0.0f)");
    case Op::kOr: return truth("(" + a + " != 0.0f) | (" + b + " != 0.0f)");
    case Op::kXor: return truth("(" + a + " != 0.0f) != (" + b + " != 0.0f)");
    case Op::kWhere: return "(" + a + " != 0.0f ? " + b + " : " + c + ")";
    default: return "0.0f";  // reductions are emitted by the caller
  }
}

class Generator {
 public:
  Generator(const autofuse::Program& program, int threads, bool vector_math)
      : program_(program), plan_(autofuse::plan_loops(program)), threads_(std::max(1, threads)),
        vector_math_(vector_math) {}

  std::string run() {
    const size_t values = program_.code.size();
    buffered_input_.assign(program_.inputs.size(), false);
    buffered_output_.assign(program_.outputs.size(), false);
    // ready[v]: loops that must finish before row value v is known; loop[v]: the first
    // loop in which full value v can be computed.
    ready_.assign(values, 0);
    for (size_t i = 0; i < values; ++i) {
      const Instruction& in = program_.code[i];
      int level = 0;
      for (int operand : autofuse::operands(in)) level = std::max(level, ready_[static_cast<size_t>(operand)]);
      ready_[i] = autofuse::is_reduction(in.op) ? level + 1 : level;
    }
    loops_ = 0;
    for (size_t i = 0; i < values; ++i) {
      if (autofuse::is_reduction(program_.code[i].op)) loops_ = std::max(loops_, ready_[i]);
    }
    bool full_outputs = false;
    for (size_t o = 0; o < program_.outputs.size(); ++o) full_outputs = full_outputs || !plan_.output_per_row[o];
    const int final_loop = full_outputs ? loops_ : -1;
    lane_tile_ = std::min(plan_.lanes, kLaneTile);
    keep_costly_values(final_loop, program_.inner_axes > 0 ? plan_.inner * lane_tile_ : plan_.inner);

    // libm's functions, declared here: with vector math, as the SIMD variants glibc's
    // libmvec provides (within a few ulp of the scalar ones), so the loops vectorise.
    const char* simd = vector_math_ ? "__attribute__((simd(\"notinbranch\"))) " : "";
    bool float16 = false;
    for (const autofuse::Input& input : program_.inputs) float16 = float16 || input.dtype == DataType::kFloat16;
    for (const autofuse::Output& output : program_.outputs) float16 = float16 || output.dtype == DataType::kFloat16;
    out_ << "// Generated by GE autofusion. Do not edit.\n#include <cstdint>\n";
    if (float16) out_ << "#if defined(__F16C__)\n#include <immintrin.h>\n#endif\n";
    out_ << "\nextern \"C\" {\n";
    for (const char* function : {"expf", "logf", "tanhf", "erff", "sinf", "cosf"}) {
      out_ << simd << "float " << function << "(float);\n";
    }
    out_ << "double pow(double, double);\n}\n\n"
            "namespace {\n"
            "inline float ge_pow(float a, float b) { return static_cast<float>(pow(static_cast<double>(a), "
            "static_cast<double>(b))); }\n"
            // expf, bit for bit, but where the result is 0 anyway (below -104: e^-104 is
            // under half the least denormal; masked scores are -inf) on an argument of 0:
            // libmvec's vector expf falls back to the scalar expf lane by lane for huge ones.
            // (The argument is masked bitwise: GCC folds `zero ? 0 : expf(zero ? 0 : x)` to
            // `zero ? 0 : expf(x)`.)
            "inline float ge_exp(float x) {\n"
            "  const bool zero = x < -104.0f;\n"
            "  const float y = expf(__builtin_bit_cast(float, __builtin_bit_cast(unsigned, x) & (zero ? 0u : ~0u)));\n"
            "  return zero ? 0.0f : y;\n}\n"
            "inline float ge_max(float a, float b) { return __builtin_isnan(a) ? a : __builtin_isnan(b) ? b : (a < b ? b : a); }\n"
            "inline float ge_min(float a, float b) { return __builtin_isnan(a) ? a : __builtin_isnan(b) ? b : (b < a ? b : a); }\n";
    if (float16) out_ << kFloat16Functions;
    out_ << "}  // namespace\n\n"
            "extern \"C\" int ge_autofuse_abi() { return " << kAbiVersion << "; }\n\n"
            "extern \"C\" void ge_autofuse_run(const void* const* inputs, void* const* outputs) {\n";
    for (size_t i = 0; i < program_.inputs.size(); ++i) {
      const std::string type = element_type(program_.inputs[i].dtype);
      out_ << "  const " << type << "* __restrict in" << i << " = static_cast<const " << type << "*>(inputs[" << i
           << "]);\n";
    }
    for (size_t o = 0; o < program_.outputs.size(); ++o) {
      const std::string type = element_type(program_.outputs[o].dtype);
      out_ << "  " << type << "* __restrict out" << o << " = static_cast<" << type << "*>(outputs[" << o << "]);\n";
    }
    if (program_.inner_axes > 0) {
      emit_lanes_body(final_loop);
      return out_.str();
    }
    const int64_t inner = plan_.inner;
    const int64_t tile = program_.reduced_axes > 0 ? inner : std::min(inner, kTileElements);
    const int64_t tiles_per_row = (inner + tile - 1) / tile;
    const int64_t tiles = plan_.rows * tiles_per_row;
    const int64_t total = plan_.rows * inner;
    const int threads = total >= 32768 && tiles > 1 ? static_cast<int>(std::min<int64_t>(threads_, tiles)) : 1;
    if (threads > 1) out_ << "#pragma omp parallel for num_threads(" << threads << ") schedule(static)\n";
    out_ << "  for (int64_t tile = 0; tile < " << tiles << "; ++tile) {\n"
         << "    const int64_t row = tile / " << tiles_per_row << ";\n"
         << "    const int64_t j_begin = (tile % " << tiles_per_row << ") * " << tile << ";\n"
         << "    const int64_t j_end = j_begin + " << tile << " < " << inner << " ? j_begin + " << tile << " : " << inner
         << ";\n"
         << "    (void)row; (void)j_begin; (void)j_end;\n";
    emit_offsets();
    for (size_t i = 0; i < values; ++i) {
      if (kept_[i]) out_ << "    alignas(64) float keep" << i << "[" << inner << "];\n";
    }
    buffer_float16(tile);
    for (size_t i = 0; i < program_.inputs.size(); ++i) {
      if (!buffered_input_[i]) continue;
      out_ << "    alignas(64) float half_in" << i << "[" << tile << "];\n"
           << "    ge_load_f16(in" << i << " + off" << i << " + j_begin, half_in" << i << ", j_end - j_begin);\n";
    }
    for (size_t o = 0; o < program_.outputs.size(); ++o) {
      if (buffered_output_[o]) out_ << "    alignas(64) float half_out" << o << "[" << tile << "];\n";
    }
    emit_row_values(0);
    for (int loop = 0; loop < loops_ || loop == final_loop; ++loop) {
      emit_loop(loop, loop == final_loop);
      emit_row_values(loop + 1);
    }
    for (size_t o = 0; o < program_.outputs.size(); ++o) {
      if (plan_.output_per_row[o]) out_ << "    out" << o << "[row] = " << stored(o) << ";\n";
    }
    out_ << "  }\n}\n";
    return out_.str();
  }

 private:
  /// The C++ type of an input or output element.
  static std::string element_type(DataType dtype) {
    switch (dtype) {
      case DataType::kBool: return "unsigned char";
      case DataType::kFloat16: return "unsigned short";  // the bit pattern
      case DataType::kInt64: return "int64_t";
      default: return "float";
    }
  }

  /// The float value of input `input`'s element at off<input><index>.
  std::string load(int input, const std::string& index) const {
    const std::string element = "in" + std::to_string(input) + "[off" + std::to_string(input) + index + "]";
    switch (program_.inputs[static_cast<size_t>(input)].dtype) {
      case DataType::kBool: return "(" + element + " != 0 ? 1.0f : 0.0f)";
      case DataType::kFloat16: return "ge_h2f(" + element + ")";
      case DataType::kInt64: return "static_cast<float>(" + element + ")";
      default: return element;
    }
  }

  /// What output `o` stores of its value.
  std::string stored(size_t o) const {
    const std::string value = v(program_.outputs[o].value);
    switch (program_.outputs[o].dtype) {
      case DataType::kBool: return "static_cast<unsigned char>(" + value + " != 0.0f)";
      case DataType::kFloat16: return "ge_f2h(" + value + ")";  // round to nearest even
      default: return value;
    }
  }

  /// A program without inner axes converts its float16 inputs walked along the tile to
  /// float32 before the tile's loops, and rounds its float16 outputs stored per element
  /// after them, a tile at once (ge_load_f16, ge_store_f16), while the buffers fit
  /// kFloat16BufferBytes: the loops then compute in float32 only. Other float16 elements
  /// convert one by one (ge_h2f, ge_f2h).
  void buffer_float16(int64_t tile) {
    buffered_input_.assign(program_.inputs.size(), false);
    buffered_output_.assign(program_.outputs.size(), false);
    int64_t budget = kFloat16BufferBytes / (tile * static_cast<int64_t>(sizeof(float)));
    for (size_t i = 0; i < program_.code.size() && budget > 0; ++i) {
      const Instruction& in = program_.code[i];
      if (in.op != Op::kLoad || plan_.per_row[i]) continue;
      const size_t input = static_cast<size_t>(in.input);
      if (program_.inputs[input].dtype != DataType::kFloat16 || buffered_input_[input]) continue;
      buffered_input_[input] = true;
      --budget;
    }
    for (size_t o = 0; o < program_.outputs.size() && budget > 0; ++o) {
      if (program_.outputs[o].dtype != DataType::kFloat16 || plan_.output_per_row[o]) continue;
      buffered_output_[o] = true;
      --budget;
    }
  }

  void emit_offsets() {
    for (size_t i = 0; i < program_.inputs.size(); ++i) out_ << "    int64_t off" << i << " = 0;\n";
    if (plan_.outer_dims.empty()) return;
    out_ << "    {\n      int64_t r = row, index;\n";
    for (size_t d = plan_.outer_dims.size(); d-- > 0;) {
      out_ << "      index = r % " << plan_.outer_dims[d] << "; r /= " << plan_.outer_dims[d] << ";\n";
      for (size_t i = 0; i < program_.inputs.size(); ++i) {
        const int64_t stride = plan_.inputs[i].outer_strides[d];
        if (stride != 0) out_ << "      off" << i << " += index * " << stride << ";\n";
      }
    }
    out_ << "    }\n";
  }

  /// Row values (computed once per tile) that become known after `level` loops.
  void emit_row_values(int level) {
    for (size_t i = 0; i < program_.code.size(); ++i) {
      const Instruction& in = program_.code[i];
      if (!plan_.per_row[i] || ready_[i] != level || autofuse::is_reduction(in.op)) continue;
      out_ << "    const float " << v(static_cast<int>(i)) << " = "
           << expression(program_, static_cast<int>(i), in.op == Op::kLoad ? load(in.input, "") : "") << ";\n";
    }
  }

  /// Whether loop `loop` loads full value `v` from its row buffer rather than computing it.
  bool reused(size_t v, int loop) const { return kept_[v] && first_loop_[v] < loop; }

  /// Full values loop `loop` names: the operands of the reductions it finishes, (the
  /// final loop) the full outputs, and what they need through full operands (row operands
  /// are named already; values reused from a row buffer need nothing).
  std::vector<bool> needed_in(int loop, bool store_outputs) const {
    std::vector<bool> needed(program_.code.size(), false);
    for (size_t i = 0; i < program_.code.size(); ++i) {
      const Instruction& in = program_.code[i];
      if (autofuse::is_reduction(in.op) && ready_[i] == loop + 1) needed[static_cast<size_t>(in.a)] = true;
    }
    if (store_outputs) {
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        if (!plan_.output_per_row[o]) needed[static_cast<size_t>(program_.outputs[o].value)] = true;
      }
    }
    for (size_t i = program_.code.size(); i-- > 0;) {
      if (!needed[i] || plan_.per_row[i] || reused(i, loop)) continue;
      for (int operand : autofuse::operands(program_.code[i])) needed[static_cast<size_t>(operand)] = true;
    }
    return needed;
  }

  /// A program with reductions walks each row once per reduction level (softmax: max, sum,
  /// then the outputs). A costly full value (exp, ...) that a later walk needs again is
  /// kept in a row buffer by the first walk, while the buffers fit kKeptBytes: the same
  /// value, loaded instead of computed.
  void keep_costly_values(int final_loop, int64_t row_floats) {
    const size_t values = program_.code.size();
    kept_.assign(values, false);
    first_loop_.assign(values, -1);
    std::vector<int> loops_needing(values, 0);
    for (int loop = 0; loop < loops_ || loop == final_loop; ++loop) {
      const std::vector<bool> needed = needed_in(loop, loop == final_loop);
      for (size_t i = 0; i < values; ++i) {
        if (!needed[i] || plan_.per_row[i]) continue;
        if (first_loop_[i] < 0) first_loop_[i] = loop;
        ++loops_needing[i];
      }
    }
    if (program_.reduced_axes == 0) return;  // one walk; a tile is not a whole row
    int64_t budget = kKeptBytes / (row_floats * static_cast<int64_t>(sizeof(float)));
    for (size_t i = 0; i < values && budget > 0; ++i) {
      if (loops_needing[i] >= 2 && costly(program_.code[i].op)) {
        kept_[i] = true;
        --budget;
      }
    }
  }

  /// Loop `loop` over the tile's elements: the reductions whose operands first exist in
  /// it, and (the final loop) every full output.
  void emit_loop(int loop, bool store_outputs) {
    std::vector<int> reductions;
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (autofuse::is_reduction(program_.code[i].op) && ready_[i] == loop + 1) reductions.push_back(static_cast<int>(i));
    }
    const std::vector<bool> needed = needed_in(loop, store_outputs);
    std::string clause;
    for (int r : reductions) {
      const Op op = program_.code[static_cast<size_t>(r)].op;
      const bool extreme = op == Op::kReduceMax || op == Op::kReduceMin;
      if (extreme) {
        out_ << "    float acc" << r << " = " << (op == Op::kReduceMax ? "-__builtin_inff()" : "__builtin_inff()")
             << "; int nan" << r << " = 0;\n";
        clause += std::string(" reduction(") + (op == Op::kReduceMax ? "max" : "min") + ":acc" + std::to_string(r) +
                  ") reduction(|:nan" + std::to_string(r) + ")";
      } else {
        out_ << "    double acc" << r << " = 0.0;\n";
        clause += " reduction(+:acc" + std::to_string(r) + ")";
      }
    }
    out_ << "#pragma omp simd" << clause << "\n    for (int64_t j = j_begin; j < j_end; ++j) {\n";
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (!needed[i] || plan_.per_row[i]) continue;
      const Instruction& in = program_.code[i];
      const std::string name = v(static_cast<int>(i));
      if (reused(i, loop)) {
        out_ << "      const float " << name << " = keep" << i << "[j];\n";
        continue;
      }
      std::string loaded;
      if (in.op == Op::kLoad) {
        loaded = buffered_input_[static_cast<size_t>(in.input)] ? "half_in" + std::to_string(in.input) + "[j - j_begin]"
                                                                 : load(in.input, " + j");
      }
      out_ << "      const float " << name << " = " << expression(program_, static_cast<int>(i), loaded) << ";\n";
      if (kept_[i]) out_ << "      keep" << i << "[j] = " << name << ";\n";
    }
    for (int r : reductions) {
      const Instruction& in = program_.code[static_cast<size_t>(r)];
      const std::string x = v(in.a);
      if (in.op == Op::kReduceMax) {
        out_ << "      acc" << r << " = " << x << " > acc" << r << " ? " << x << " : acc" << r << "; nan" << r
             << " |= " << x << " != " << x << ";\n";
      } else if (in.op == Op::kReduceMin) {
        out_ << "      acc" << r << " = " << x << " < acc" << r << " ? " << x << " : acc" << r << "; nan" << r
             << " |= " << x << " != " << x << ";\n";
      } else {
        out_ << "      acc" << r << " += static_cast<double>(" << x << ");\n";
      }
    }
    if (store_outputs) {
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        if (plan_.output_per_row[o]) continue;
        if (buffered_output_[o]) {
          out_ << "      half_out" << o << "[j - j_begin] = " << v(program_.outputs[o].value) << ";\n";
        } else {
          out_ << "      out" << o << "[row * " << plan_.inner << " + j] = " << stored(o) << ";\n";
        }
      }
    }
    out_ << "    }\n";
    for (size_t o = 0; store_outputs && o < program_.outputs.size(); ++o) {
      if (!buffered_output_[o]) continue;
      out_ << "    ge_store_f16(half_out" << o << ", out" << o << " + row * " << plan_.inner
           << " + j_begin, j_end - j_begin);\n";
    }
    for (int r : reductions) {
      const Op op = program_.code[static_cast<size_t>(r)].op;
      out_ << "    const float " << v(r) << " = ";
      if (op == Op::kReduceMax || op == Op::kReduceMin) {
        out_ << "nan" << r << " ? __builtin_nanf(\"\") : acc" << r << ";\n";
      } else if (op == Op::kReduceMean) {
        out_ << "static_cast<float>(acc" << r << " / " << plan_.inner << ".0);\n";
      } else {
        out_ << "static_cast<float>(acc" << r << ");\n";
      }
    }
  }

  /// A program with inner axes: tiles of (row, up to lane_tile_ lanes). Row values are
  /// per-lane arrays row<v>[l]; each reduction level walks the reduced extent (i) with the
  /// lanes innermost, so every loop vectorises along the lanes and each lane accumulates
  /// in order, as the interpreter does.
  void emit_lanes_body(int final_loop) {
    const int64_t lanes = plan_.lanes, inner = plan_.inner;
    const int64_t lane_tiles = (lanes + lane_tile_ - 1) / lane_tile_;
    const int64_t tiles = plan_.rows * lane_tiles;
    const int64_t total = plan_.rows * inner * lanes;
    const int threads = total >= 32768 && tiles > 1 ? static_cast<int>(std::min<int64_t>(threads_, tiles)) : 1;
    if (threads > 1) out_ << "#pragma omp parallel for num_threads(" << threads << ") schedule(static)\n";
    out_ << "  for (int64_t tile = 0; tile < " << tiles << "; ++tile) {\n"
         << "    const int64_t row = tile / " << lane_tiles << ";\n"
         << "    const int64_t lane0 = (tile % " << lane_tiles << ") * " << lane_tile_ << ";\n"
         << "    const int64_t n = lane0 + " << lane_tile_ << " < " << lanes << " ? " << lane_tile_ << " : " << lanes
         << " - lane0;\n"
         << "    (void)row;\n";
    emit_offsets();
    for (size_t i = 0; i < program_.inputs.size(); ++i) {
      if (plan_.inputs[i].contiguous_lanes) out_ << "    off" << i << " += lane0;\n";
    }
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (!plan_.per_row[i]) continue;
      if (program_.code[i].op == Op::kConst) {
        out_ << "    const float " << v(static_cast<int>(i)) << " = " << expression(program_, static_cast<int>(i), "")
             << ";\n";
      } else {
        out_ << "    alignas(64) float row" << i << "[" << lane_tile_ << "];\n";
      }
    }
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (kept_[i]) out_ << "    alignas(64) float keep" << i << "[" << inner * lane_tile_ << "];\n";
    }
    emit_lane_values(0);
    for (int loop = 0; loop < loops_ || loop == final_loop; ++loop) {
      emit_lanes_loop(loop, loop == final_loop);
      emit_lane_values(loop + 1);
    }
    std::vector<int> stored_rows;
    for (size_t o = 0; o < program_.outputs.size(); ++o) {
      if (plan_.output_per_row[o]) stored_rows.push_back(program_.outputs[o].value);
    }
    if (!stored_rows.empty()) {
      out_ << "#pragma omp simd\n    for (int64_t l = 0; l < n; ++l) {\n";
      emit_row_operands(stored_rows, {}, "      ");
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        if (plan_.output_per_row[o]) out_ << "      out" << o << "[row * " << lanes << " + lane0 + l] = " << stored(o) << ";\n";
      }
      out_ << "    }\n";
    }
    out_ << "  }\n}\n";
  }

  bool in_row_array(size_t value) const { return plan_.per_row[value] && program_.code[value].op != Op::kConst; }

  /// Inside a loop over lanes l: names the row values in arrays that `users` read (their
  /// operands; `values` themselves too) and `defined` does not define.
  void emit_row_operands(const std::vector<int>& users, const std::vector<int>& defined, const char* indent) {
    std::vector<bool> named(program_.code.size(), false);
    for (int d : defined) named[static_cast<size_t>(d)] = true;
    std::vector<int> wanted;
    for (int user : users) {
      wanted.push_back(user);
      for (int operand : autofuse::operands(program_.code[static_cast<size_t>(user)])) wanted.push_back(operand);
    }
    std::sort(wanted.begin(), wanted.end());
    for (int w : wanted) {
      const size_t value = static_cast<size_t>(w);
      if (named[value] || !in_row_array(value)) continue;
      named[value] = true;
      out_ << indent << "const float " << v(w) << " = row" << w << "[l];\n";
    }
  }

  /// One loop over the tile's lanes computing the row values that become known after
  /// `level` loops (a reduction: from its accumulators).
  void emit_lane_values(int level) {
    std::vector<int> computed;
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (in_row_array(i) && ready_[i] == level) computed.push_back(static_cast<int>(i));
    }
    if (computed.empty()) return;
    out_ << "#pragma omp simd\n    for (int64_t l = 0; l < n; ++l) {\n";
    std::vector<int> users;
    for (int i : computed) {
      if (!autofuse::is_reduction(program_.code[static_cast<size_t>(i)].op)) users.push_back(i);
    }
    emit_row_operands(users, computed, "      ");
    for (int i : computed) {
      const Instruction& in = program_.code[static_cast<size_t>(i)];
      out_ << "      const float " << v(i) << " = ";
      if (in.op == Op::kReduceMax || in.op == Op::kReduceMin) {
        out_ << "nan" << i << "[l] ? __builtin_nanf(\"\") : acc" << i << "[l];\n";
      } else if (in.op == Op::kReduceMean) {
        out_ << "static_cast<float>(acc" << i << "[l] / " << plan_.inner << ".0);\n";
      } else if (in.op == Op::kReduceSum) {
        out_ << "static_cast<float>(acc" << i << "[l]);\n";
      } else {
        const bool lanes = in.op == Op::kLoad && plan_.inputs[static_cast<size_t>(in.input)].contiguous_lanes;
        out_ << expression(program_, i, in.op == Op::kLoad ? load(in.input, lanes ? " + l" : "") : "") << ";\n";
      }
      out_ << "      row" << i << "[l] = " << v(i) << ";\n";
    }
    out_ << "    }\n";
  }

  /// Loop `loop` over the reduced extent i (outside) and the tile's lanes l (inside):
  /// the reductions whose operands first exist in it, and (the final loop) every full
  /// output.
  void emit_lanes_loop(int loop, bool store_outputs) {
    std::vector<int> reductions;
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (autofuse::is_reduction(program_.code[i].op) && ready_[i] == loop + 1) reductions.push_back(static_cast<int>(i));
    }
    for (int r : reductions) {
      const Op op = program_.code[static_cast<size_t>(r)].op;
      if (op == Op::kReduceMax || op == Op::kReduceMin) {
        out_ << "    float acc" << r << "[" << lane_tile_ << "]; unsigned char nan" << r << "[" << lane_tile_ << "];\n"
             << "    for (int64_t l = 0; l < n; ++l) { acc" << r << "[l] = "
             << (op == Op::kReduceMax ? "-__builtin_inff()" : "__builtin_inff()") << "; nan" << r << "[l] = 0; }\n";
      } else {
        out_ << "    double acc" << r << "[" << lane_tile_ << "];\n"
             << "    for (int64_t l = 0; l < n; ++l) acc" << r << "[l] = 0.0;\n";
      }
    }
    const std::vector<bool> needed = needed_in(loop, store_outputs);
    std::vector<int> users;  // what the loop body computes or stores
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (needed[i] && !plan_.per_row[i] && !reused(i, loop)) users.push_back(static_cast<int>(i));
    }
    if (store_outputs) {
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        if (!plan_.output_per_row[o]) users.push_back(program_.outputs[o].value);
      }
    }
    out_ << "    for (int64_t i = 0; i < " << plan_.inner << "; ++i) {\n#pragma omp simd\n"
         << "      for (int64_t l = 0; l < n; ++l) {\n";
    emit_row_operands(users, {}, "        ");
    for (size_t i = 0; i < program_.code.size(); ++i) {
      if (!needed[i] || plan_.per_row[i]) continue;
      const Instruction& in = program_.code[i];
      const std::string name = v(static_cast<int>(i));
      const std::string kept = "keep" + std::to_string(i) + "[i * " + std::to_string(lane_tile_) + " + l]";
      if (reused(i, loop)) {
        out_ << "        const float " << name << " = " << kept << ";\n";
        continue;
      }
      std::string index;
      if (in.op == Op::kLoad) {
        const autofuse::InputWalk& walk = plan_.inputs[static_cast<size_t>(in.input)];
        if (walk.inner_stride != 0) index += " + i * " + std::to_string(walk.inner_stride);
        if (walk.contiguous_lanes) index += " + l";
      }
      out_ << "        const float " << name << " = "
           << expression(program_, static_cast<int>(i), in.op == Op::kLoad ? load(in.input, index) : "") << ";\n";
      if (kept_[i]) out_ << "        " << kept << " = " << name << ";\n";
    }
    for (int r : reductions) {
      const Instruction& in = program_.code[static_cast<size_t>(r)];
      const std::string x = v(in.a), acc = "acc" + std::to_string(r) + "[l]";
      if (in.op == Op::kReduceMax || in.op == Op::kReduceMin) {
        out_ << "        " << acc << " = " << x << (in.op == Op::kReduceMax ? " > " : " < ") << acc << " ? " << x
             << " : " << acc << "; nan" << r << "[l] |= " << x << " != " << x << ";\n";
      } else {
        out_ << "        " << acc << " += static_cast<double>(" << x << ");\n";
      }
    }
    if (store_outputs) {
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        if (plan_.output_per_row[o]) continue;
        out_ << "        out" << o << "[(row * " << plan_.inner << " + i) * " << plan_.lanes << " + lane0 + l] = "
             << stored(o) << ";\n";
      }
    }
    out_ << "      }\n    }\n";
  }

  const autofuse::Program& program_;
  autofuse::LoopPlan plan_;
  int64_t lane_tile_ = 1;
  int threads_;
  bool vector_math_;
  std::vector<int> ready_;
  int loops_ = 0;
  std::vector<bool> kept_;        ///< full values kept in a row buffer (keep_costly_values)
  std::vector<int> first_loop_;   ///< the first loop computing each full value, or -1
  std::vector<bool> buffered_input_;   ///< float16 inputs converted a tile at once (buffer_float16)
  std::vector<bool> buffered_output_;  ///< float16 outputs rounded a tile at once
  std::ostringstream out_;
};

}  // namespace

std::string generate_source(const autofuse::Program& program, int threads, bool vector_math) {
  return Generator(program, threads, vector_math).run();
}

}  // namespace ge::cpu_autofuse
