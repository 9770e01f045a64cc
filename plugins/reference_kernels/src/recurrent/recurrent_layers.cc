// RNN, GRU and LSTM (ONNX opsets 1-14). One walk serves all three cells: for each
// direction and batch row, the hidden (and cell) state runs over that row's time steps,
// forward or backward, and each step computes the gate pre-activations
//   x_t * W^T + Wb   and   h_{t-1} * R^T + Rb
// (gate order: RNN i; GRU z r h; LSTM i o f c), clips them when `clip` is set, and
// applies the cell's equations with its activation functions (defaults: RNN Tanh; GRU
// Sigmoid, Tanh; LSTM Sigmoid, Tanh, Tanh). Rows shorter than seq_length (sequence_lens)
// leave zeros in Y past their end; Y_h/Y_c hold the state after the row's last step.
// Accumulation is in double, so float16/bfloat16/float32 results are the exactly rounded
// reference. layout 1 (opset 14) swaps the batch and sequence axes of X, Y, Y_h, Y_c and
// the initial states.

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "common/special_common.h"
#include "recurrent/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class Cell { kRnn, kGru, kLstm };

enum class ActivationKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

struct Activation {
  ActivationKind kind = ActivationKind::kTanh;
  double alpha = 0.0;
  double beta = 0.0;
};

double apply(const Activation& f, double x) {
  switch (f.kind) {
    case ActivationKind::kRelu:
      return x > 0.0 ? x : 0.0;
    case ActivationKind::kTanh:
      return std::tanh(x);
    case ActivationKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case ActivationKind::kAffine:
      return f.alpha * x + f.beta;
    case ActivationKind::kLeakyRelu:
      return x >= 0.0 ? x : f.alpha * x;
    case ActivationKind::kThresholdedRelu:
      return x > f.alpha ? x : 0.0;
    case ActivationKind::kScaledTanh:
      return f.alpha * std::tanh(f.beta * x);
    case ActivationKind::kHardSigmoid:
      return std::clamp(f.alpha * x + f.beta, 0.0, 1.0);
    case ActivationKind::kElu:
      return x >= 0.0 ? x : f.alpha * (std::exp(x) - 1.0);
    case ActivationKind::kSoftsign:
      return x / (1.0 + std::fabs(x));
    case ActivationKind::kSoftplus:
      return std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0);  // log(1 + e^x) without overflow
  }
  return x;
}

constexpr size_t kMaxActivations = 6;  // 3 per direction (LSTM), 2 directions

struct RecurrentParams {
  Cell cell = Cell::kRnn;
  int64_t seq_length = 0;
  int64_t batch = 0;
  int64_t input_size = 0;
  int64_t hidden = 0;
  int64_t directions = 1;
  bool reverse = false;  // direction = "reverse" (a single backward pass)
  bool batch_major = false;  // layout = 1
  bool has_clip = false;
  double clip = 0.0;
  bool linear_before_reset = false;
  bool input_forget = false;
  int64_t gates = 1;                  // gate blocks in W and R
  size_t activations_per_direction = 1;
  std::array<Activation, kMaxActivations> activations{};
  DataType lengths_dtype = DataType::kInt32;
  size_t input_count = 0;  // the node's, for the optional trailing inputs and outputs
  size_t output_count = 0;
};

// Flat offsets of the layout-dependent tensors.
struct Indexer {
  const RecurrentParams& p;
  int64_t x(int64_t t, int64_t b) const {
    return (p.batch_major ? b * p.seq_length + t : t * p.batch + b) * p.input_size;
  }
  int64_t y(int64_t t, int64_t d, int64_t b) const {
    return (p.batch_major ? (b * p.seq_length + t) * p.directions + d : (t * p.directions + d) * p.batch + b) *
           p.hidden;
  }
  // Y_h, Y_c, initial_h and initial_c.
  int64_t state(int64_t d, int64_t b) const {
    return (p.batch_major ? b * p.directions + d : d * p.batch + b) * p.hidden;
  }
};

// Workspace: doubles for h, c, the two pre-activation blocks and two scratch rows.
size_t workspace_doubles(const RecurrentParams& p) {
  return static_cast<size_t>(2 * p.hidden + 2 * p.gates * p.hidden + 2 * p.hidden);
}

// Row of W or R (elements of T) times a vector of T or of double, in double. Four
// independent sums let the compiler keep them in one vector register.
template <typename T, typename V>
double dot(const T* row, const V* vector, int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += load(row[k]) * load(vector[k]);
    s1 += load(row[k + 1]) * load(vector[k + 1]);
    s2 += load(row[k + 2]) * load(vector[k + 2]);
    s3 += load(row[k + 3]) * load(vector[k + 3]);
  }
  for (; k < n; ++k) s0 += load(row[k]) * load(vector[k]);
  return (s0 + s1) + (s2 + s3);
}

// float32 rows times a float32 vector with eight float sums (one AVX register): the
// gate products of float models, as other engines compute them in float.
float dot_float(const float* row, const float* vector, int64_t n) {
  float sums[8] = {};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    for (int j = 0; j < 8; ++j) sums[j] += row[k + j] * vector[k + j];
  }
  float tail = 0.0f;
  for (; k < n; ++k) tail += row[k] * vector[k];
  return ((sums[0] + sums[4]) + (sums[1] + sums[5])) + ((sums[2] + sums[6]) + (sums[3] + sums[7])) + tail;
}

template <typename T>
int recurrent_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RecurrentParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* w = static_cast<const T*>(args.inputs[1]);
  const auto* r = static_cast<const T*>(args.inputs[2]);
  const auto* bias = static_cast<const T*>(optional_input(args, p.input_count, 3));
  const void* lengths = optional_input(args, p.input_count, 4);
  const auto* initial_h = static_cast<const T*>(optional_input(args, p.input_count, 5));
  const auto* initial_c = static_cast<const T*>(optional_input(args, p.input_count, 6));  // LSTM only
  const auto* peepholes = static_cast<const T*>(optional_input(args, p.input_count, 7));  // LSTM only
  T* y = static_cast<T*>(optional_output(args, p.output_count, 0));
  T* y_h = static_cast<T*>(optional_output(args, p.output_count, 1));
  T* y_c = static_cast<T*>(optional_output(args, p.output_count, 2));  // LSTM only
  if (x == nullptr || w == nullptr || r == nullptr) return kKernelMissingAddress;
  if (lengths != nullptr) {
    for (int64_t b = 0; b < p.batch; ++b) {
      const int64_t length = load_index(lengths, p.lengths_dtype, b);
      if (length < 0 || length > p.seq_length) return kSequenceLengthOutOfRange;
    }
  }
  if (p.hidden > 0 && args.workspace == nullptr) return kKernelMissingAddress;

  const Indexer at{p};
  const int64_t H = p.hidden;
  const int64_t GH = p.gates * H;
  auto* h = static_cast<double*>(args.workspace);
  double* c = h + H;
  double* xw = c + H;       // x_t * W^T + Wb, GH
  double* hr = xw + GH;     // h_{t-1} * R^T + Rb, GH
  double* scratch = hr + GH;
  double* next = scratch + H;
  auto clipped = [&p](double v) { return p.has_clip ? std::clamp(v, -p.clip, p.clip) : v; };

  for (int64_t d = 0; d < p.directions; ++d) {
    const bool backward = p.reverse || d == 1;
    const T* w_d = w + d * GH * p.input_size;
    const T* r_d = r + d * GH * H;
    const T* wb = bias != nullptr ? bias + d * 2 * GH : nullptr;
    const T* rb = wb != nullptr ? wb + GH : nullptr;
    const T* p_d = peepholes != nullptr ? peepholes + d * 3 * H : nullptr;
    const Activation* f = &p.activations[static_cast<size_t>(d) * p.activations_per_direction];
    for (int64_t b = 0; b < p.batch; ++b) {
      const int64_t length = lengths != nullptr ? load_index(lengths, p.lengths_dtype, b) : p.seq_length;
      for (int64_t j = 0; j < H; ++j) {
        h[j] = initial_h != nullptr ? load(initial_h[at.state(d, b) + j]) : 0.0;
        c[j] = initial_c != nullptr ? load(initial_c[at.state(d, b) + j]) : 0.0;
      }
      for (int64_t step = 0; step < length; ++step) {
        const int64_t t = backward ? length - 1 - step : step;
        const T* x_t = x + at.x(t, b);
        if constexpr (std::is_same_v<T, float>) {
          thread_local std::vector<float> h_float;
          h_float.assign(h, h + H);
          for (int64_t g = 0; g < GH; ++g) {
            xw[g] = static_cast<double>(dot_float(w_d + g * p.input_size, x_t, p.input_size)) +
                    (wb != nullptr ? load(wb[g]) : 0.0);
            hr[g] = static_cast<double>(dot_float(r_d + g * H, h_float.data(), H)) + (rb != nullptr ? load(rb[g]) : 0.0);
          }
        } else {
          for (int64_t g = 0; g < GH; ++g) {
            xw[g] = dot(w_d + g * p.input_size, x_t, p.input_size) + (wb != nullptr ? load(wb[g]) : 0.0);
            hr[g] = dot(r_d + g * H, h, H) + (rb != nullptr ? load(rb[g]) : 0.0);
          }
        }
        switch (p.cell) {
          case Cell::kRnn:
            for (int64_t j = 0; j < H; ++j) next[j] = apply(f[0], clipped(xw[j] + hr[j]));
            break;
          case Cell::kGru: {
            double* z = scratch;
            double* candidate_recurrent = next;
            for (int64_t j = 0; j < H; ++j) z[j] = apply(f[0], clipped(xw[j] + hr[j]));
            if (p.linear_before_reset) {
              for (int64_t j = 0; j < H; ++j) {
                candidate_recurrent[j] = apply(f[0], clipped(xw[H + j] + hr[H + j])) * hr[2 * H + j];
              }
            } else {
              // (r . h_{t-1}) * Rh^T + Rbh needs every r first; hr's candidate block
              // (h_{t-1} * Rh^T + Rbh) is unused here and holds r . h_{t-1}.
              double* reset_h = hr + 2 * H;
              for (int64_t j = 0; j < H; ++j) reset_h[j] = apply(f[0], clipped(xw[H + j] + hr[H + j])) * h[j];
              for (int64_t j = 0; j < H; ++j) {
                candidate_recurrent[j] =
                    dot(r_d + (2 * H + j) * H, reset_h, H) + (rb != nullptr ? load(rb[2 * H + j]) : 0.0);
              }
            }
            for (int64_t j = 0; j < H; ++j) {
              const double candidate = apply(f[1], clipped(xw[2 * H + j] + candidate_recurrent[j]));
              next[j] = (1.0 - z[j]) * candidate + z[j] * h[j];
            }
            break;
          }
          case Cell::kLstm: {
            for (int64_t j = 0; j < H; ++j) {
              const double pi = p_d != nullptr ? load(p_d[j]) : 0.0;
              const double po = p_d != nullptr ? load(p_d[H + j]) : 0.0;
              const double pf = p_d != nullptr ? load(p_d[2 * H + j]) : 0.0;
              const double in = apply(f[0], clipped(xw[j] + hr[j] + pi * c[j]));
              const double forget =
                  p.input_forget ? 1.0 - in : apply(f[0], clipped(xw[2 * H + j] + hr[2 * H + j] + pf * c[j]));
              const double candidate = apply(f[1], clipped(xw[3 * H + j] + hr[3 * H + j]));
              const double cell = forget * c[j] + in * candidate;
              const double out = apply(f[0], clipped(xw[H + j] + hr[H + j] + po * cell));
              scratch[j] = cell;
              next[j] = out * apply(f[2], cell);
            }
            std::copy(scratch, scratch + H, c);
            break;
          }
        }
        std::copy(next, next + H, h);
        if (y != nullptr) {
          T* y_t = y + at.y(t, d, b);
          for (int64_t j = 0; j < H; ++j) y_t[j] = store<T>(h[j]);
        }
      }
      if (y != nullptr) {
        for (int64_t t = length; t < p.seq_length; ++t) {
          T* y_t = y + at.y(t, d, b);
          for (int64_t j = 0; j < H; ++j) y_t[j] = store<T>(0.0);
        }
      }
      if (y_h != nullptr) {
        for (int64_t j = 0; j < H; ++j) y_h[at.state(d, b) + j] = store<T>(h[j]);
      }
      if (y_c != nullptr) {
        for (int64_t j = 0; j < H; ++j) y_c[at.state(d, b) + j] = store<T>(c[j]);
      }
    }
  }
  return kKernelOk;
}

std::string lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

// Parses one activation name, taking its alpha/beta from the lists in order when the
// function uses them (the ONNX convention); a missing value takes the default of the
// standalone op of that name.
Result<Activation> parse_activation(const KernelContext& context, const std::string& name,
                                    const std::vector<float>& alphas, size_t& alpha_index,
                                    const std::vector<float>& betas, size_t& beta_index) {
  struct Known {
    const char* name;
    ActivationKind kind;
    bool uses_alpha, uses_beta;
    double alpha, beta;
  };
  static constexpr Known kKnown[] = {
      {"relu", ActivationKind::kRelu, false, false, 0.0, 0.0},
      {"tanh", ActivationKind::kTanh, false, false, 0.0, 0.0},
      {"sigmoid", ActivationKind::kSigmoid, false, false, 0.0, 0.0},
      {"affine", ActivationKind::kAffine, true, true, 1.0, 0.0},
      {"leakyrelu", ActivationKind::kLeakyRelu, true, false, 0.01, 0.0},
      {"thresholdedrelu", ActivationKind::kThresholdedRelu, true, false, 1.0, 0.0},
      {"scaledtanh", ActivationKind::kScaledTanh, true, true, 1.0, 1.0},
      {"hardsigmoid", ActivationKind::kHardSigmoid, true, true, 0.2, 0.5},
      {"elu", ActivationKind::kElu, true, false, 1.0, 0.0},
      {"softsign", ActivationKind::kSoftsign, false, false, 0.0, 0.0},
      {"softplus", ActivationKind::kSoftplus, false, false, 0.0, 0.0},
  };
  const std::string key = lower(name);
  for (const Known& known : kKnown) {
    if (key != known.name) continue;
    Activation activation{known.kind, known.alpha, known.beta};
    if (known.uses_alpha && alpha_index < alphas.size()) activation.alpha = alphas[alpha_index++];
    if (known.uses_beta && beta_index < betas.size()) activation.beta = betas[beta_index++];
    return activation;
  }
  return unsupported_feature(context, "activation function '" + name + "'");
}

Result<std::vector<float>> floats_attribute(const KernelContext& context, const std::string& name) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return std::vector<float>{};
  if (!attribute->holds<std::vector<float>>()) {
    return invalid_attribute(context, name,
                             std::string("must be a list of floats, not ") + attribute_type_name(attribute->type()));
  }
  return attribute->get<std::vector<float>>();
}

Result<std::vector<std::string>> strings_attribute(const KernelContext& context, const std::string& name) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return std::vector<std::string>{};
  if (!attribute->holds<std::vector<std::string>>()) {
    return invalid_attribute(context, name,
                             std::string("must be a list of strings, not ") + attribute_type_name(attribute->type()));
  }
  return attribute->get<std::vector<std::string>>();
}

Status check_dims(const KernelContext& context, size_t index, const char* role,
                  const std::vector<int64_t>& expected) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, index));
  if (dims != expected) {
    return invalid_node(context, std::string("input ") + std::to_string(index) + " (" + role + ") has shape " +
                                     shape_to_string(dims) + ", expected " + shape_to_string(expected));
  }
  return Status::ok();
}

Result<PreparedKernel> prepare_recurrent(const KernelContext& context, Cell cell) {
  const DataType dtype = input_dtype(context, 0);
  const std::vector<DataType> supported = data_types(RealTypes{});
  if (std::find(supported.begin(), supported.end(), dtype) == supported.end()) {
    return unsupported_dtype(context, dtype, supported);
  }
  RecurrentParams p;
  p.cell = cell;
  p.gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
  p.activations_per_direction = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;

  GE_ASSIGN_OR_RETURN(std::string direction, string_attribute(context, "direction", "forward"));
  if (direction == "bidirectional") {
    p.directions = 2;
  } else if (direction == "reverse") {
    p.reverse = true;
  } else if (direction != "forward") {
    return invalid_attribute(context, "direction", "is '" + direction + "'; expected forward, reverse or bidirectional");
  }
  GE_ASSIGN_OR_RETURN(int64_t layout, int_attribute(context, "layout", 0));
  if (layout != 0 && layout != 1) return invalid_attribute(context, "layout", "must be 0 or 1");
  p.batch_major = layout == 1;
  if (context.node.has_attribute("clip")) {
    GE_ASSIGN_OR_RETURN(float clip, float_attribute(context, "clip", 0.0f));
    if (!(clip > 0.0f)) return invalid_attribute(context, "clip", "must be positive");
    p.has_clip = true;
    p.clip = clip;
  }
  if (cell == Cell::kGru) {
    GE_ASSIGN_OR_RETURN(int64_t linear, int_attribute(context, "linear_before_reset", 0));
    p.linear_before_reset = linear != 0;
  }
  if (cell == Cell::kLstm) {
    GE_ASSIGN_OR_RETURN(int64_t coupled, int_attribute(context, "input_forget", 0));
    p.input_forget = coupled != 0;
  }
  if (context.node.has_attribute("output_sequence")) {
    // Opset-1 RNN/GRU/LSTM: Y is produced when its output is named, whatever this says.
    GE_RETURN_IF_ERROR(int_attribute(context, "output_sequence", 0).status());
  }

  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> r_dims, input_dims(context, 2));
  if (x_dims.size() != 3) return invalid_node(context, "input 0 (X) must be 3-D, got " + shape_to_string(x_dims));
  p.seq_length = p.batch_major ? x_dims[1] : x_dims[0];
  p.batch = p.batch_major ? x_dims[0] : x_dims[1];
  p.input_size = x_dims[2];
  if (r_dims.size() != 3) return invalid_node(context, "input 2 (R) must be 3-D, got " + shape_to_string(r_dims));
  GE_ASSIGN_OR_RETURN(int64_t hidden, int_attribute(context, "hidden_size", r_dims[2]));
  if (hidden <= 0) return invalid_attribute(context, "hidden_size", "must be positive");
  p.hidden = hidden;
  const int64_t GH = p.gates * p.hidden;
  GE_RETURN_IF_ERROR(check_dims(context, 1, "W", {p.directions, GH, p.input_size}));
  GE_RETURN_IF_ERROR(check_dims(context, 2, "R", {p.directions, GH, p.hidden}));
  const std::vector<int64_t> state_dims = p.batch_major ? std::vector<int64_t>{p.batch, p.directions, p.hidden}
                                                        : std::vector<int64_t>{p.directions, p.batch, p.hidden};
  if (has_input(context, 3)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 3, dtype));
    GE_RETURN_IF_ERROR(check_dims(context, 3, "B", {p.directions, 2 * GH}));
  }
  if (has_input(context, 4)) {
    p.lengths_dtype = input_dtype(context, 4);
    if (p.lengths_dtype != DataType::kInt32 && p.lengths_dtype != DataType::kInt64) {
      return unsupported_feature(context, "sequence_lens of dtype " + std::string(data_type_name(p.lengths_dtype)) +
                                              " (int32 expected)");
    }
    GE_RETURN_IF_ERROR(check_dims(context, 4, "sequence_lens", {p.batch}));
  }
  if (has_input(context, 5)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 5, dtype));
    GE_RETURN_IF_ERROR(check_dims(context, 5, "initial_h", state_dims));
  }
  const size_t input_limit = cell == Cell::kLstm ? 8 : 6;
  if (context.node.input_count() > input_limit) {
    return invalid_node(context, "has " + std::to_string(context.node.input_count()) + " inputs; at most " +
                                     std::to_string(input_limit) + " expected");
  }
  if (cell == Cell::kLstm) {
    if (has_input(context, 6)) {
      GE_RETURN_IF_ERROR(check_input_dtype(context, 6, dtype));
      GE_RETURN_IF_ERROR(check_dims(context, 6, "initial_c", state_dims));
    }
    if (has_input(context, 7)) {
      GE_RETURN_IF_ERROR(check_input_dtype(context, 7, dtype));
      GE_RETURN_IF_ERROR(check_dims(context, 7, "P", {p.directions, 3 * p.hidden}));
    }
  }
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
  p.input_count = context.node.input_count();
  p.output_count = context.node.output_count();

  // Outputs: Y, Y_h and (LSTM) Y_c, each optional.
  const size_t output_limit = cell == Cell::kLstm ? 3 : 2;
  if (context.node.output_count() > output_limit) {
    return invalid_node(context, "has " + std::to_string(context.node.output_count()) + " outputs; at most " +
                                     std::to_string(output_limit) + " expected");
  }
  if (has_output(context, 0)) {
    const std::vector<int64_t> y_dims = p.batch_major
                                            ? std::vector<int64_t>{p.batch, p.seq_length, p.directions, p.hidden}
                                            : std::vector<int64_t>{p.seq_length, p.directions, p.batch, p.hidden};
    GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  }
  for (size_t i = 1; i < output_limit; ++i) {
    if (has_output(context, i)) GE_RETURN_IF_ERROR(check_output(context, i, dtype, state_dims));
  }

  // Activations: one set per direction; a single set serves both directions.
  GE_ASSIGN_OR_RETURN(std::vector<std::string> names, strings_attribute(context, "activations"));
  GE_ASSIGN_OR_RETURN(std::vector<float> alphas, floats_attribute(context, "activation_alpha"));
  GE_ASSIGN_OR_RETURN(std::vector<float> betas, floats_attribute(context, "activation_beta"));
  const size_t per_direction = p.activations_per_direction;
  const size_t wanted = per_direction * static_cast<size_t>(p.directions);
  if (names.empty()) {
    const std::vector<std::string> defaults = cell == Cell::kRnn   ? std::vector<std::string>{"Tanh"}
                                              : cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                   : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < p.directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_direction && p.directions == 2) {
    const std::vector<std::string> once = names;
    names.insert(names.end(), once.begin(), once.end());
    // The alpha/beta lists were written for one set: repeat them too.
    const std::vector<float> alpha_once = alphas, beta_once = betas;
    alphas.insert(alphas.end(), alpha_once.begin(), alpha_once.end());
    betas.insert(betas.end(), beta_once.begin(), beta_once.end());
  }
  if (names.size() != wanted) {
    return invalid_attribute(context, "activations",
                             "has " + std::to_string(names.size()) + " entries; expected " + std::to_string(wanted));
  }
  size_t alpha_index = 0, beta_index = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    GE_ASSIGN_OR_RETURN(p.activations[i],
                        parse_activation(context, names[i], alphas, alpha_index, betas, beta_index));
  }

  KernelFunction function = select_kernel(
      dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &recurrent_kernel<T>; });
  const size_t workspace = workspace_doubles(p) * sizeof(double);
  return make_kernel(context, function, p, workspace);
}

Result<PreparedKernel> prepare_rnn(const KernelContext& context) { return prepare_recurrent(context, Cell::kRnn); }
Result<PreparedKernel> prepare_gru(const KernelContext& context) { return prepare_recurrent(context, Cell::kGru); }
Result<PreparedKernel> prepare_lstm(const KernelContext& context) { return prepare_recurrent(context, Cell::kLstm); }

}  // namespace

void add_recurrent_kernels(std::vector<OpKernel>& table) {
  // Empty dtype lists: prepare checks the dtype itself (float16 and bfloat16 included).
  table.push_back({"RNN", {}, &prepare_rnn});
  table.push_back({"GRU", {}, &prepare_gru});
  table.push_back({"LSTM", {}, &prepare_lstm});
}

}  // namespace ge::reference_kernels::special
