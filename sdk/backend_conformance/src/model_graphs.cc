#include "model_graphs.h"

#include <string>

#include "test_data.h"

namespace ge::backend_conformance {
namespace {

/// `init %name : float32[dims] = [...]` with values in [-scale, scale].
std::string weights(const std::string& name, const std::vector<int64_t>& dims, uint32_t seed, double scale = 0.5) {
  const Tensor tensor = random_tensor(TensorDesc::of(DataType::kFloat32, dims), -scale, scale, seed_for(seed, name));
  std::string type;
  for (const int64_t dim : dims) type += (type.empty() ? "" : ",") + std::to_string(dim);
  return "  init %" + name + " : float32[" + type + "] = " + literal_of(tensor) + "\n";
}

}  // namespace

std::vector<CandidateGraph> model_candidates(uint32_t seed) {
  const std::string cnn = "graph cnn (opset \"\"=17) {\n  input %x : float32[2,3,16,16]\n" +
                          weights("w1", {8, 3, 3, 3}, seed) + weights("b1", {8}, seed) +
                          weights("w2", {8, 8, 3, 3}, seed) + weights("wd", {10, 8}, seed) +
                          weights("bd", {10}, seed) + R"(  %c1 = Conv(%x, %w1, %b1) {pads: ints = [1, 1, 1, 1]} "conv1"
  %r1 = Relu(%c1) "relu1"
  %p1 = MaxPool(%r1) {kernel_shape: ints = [2, 2], strides: ints = [2, 2]} "pool1"
  %c2 = Conv(%p1, %w2) {pads: ints = [1, 1, 1, 1]} "conv2"
  %r2 = Relu(%c2) "relu2"
  %g = GlobalAveragePool(%r2) "gap"
  %f = Flatten(%g) "flatten"
  %d = Gemm(%f, %wd, %bd) {transB: int = 1} "dense"
  %y = Softmax(%d) {axis: int = -1} "softmax"
  output %y
  output %p1
}
)";
  const std::string mlp = "graph mlp (opset \"\"=17) {\n  input %x : float32[4,16]\n" + weights("w1", {16, 32}, seed) +
                          weights("b1", {32}, seed) + weights("w2", {32, 8}, seed) + weights("b2", {8}, seed) +
                          R"(  %m1 = MatMul(%x, %w1) "fc1"
  %a1 = Add(%m1, %b1) "bias1"
  %h = Relu(%a1) "relu"
  %m2 = MatMul(%h, %w2) "fc2"
  %a2 = Add(%m2, %b2) "bias2"
  %y = Sigmoid(%a2) "sigmoid"
  output %y
  output %h
}
)";
  const std::string elementwise = "graph elementwise (opset \"\"=17) {\n  input %x : float32[4,64]\n"
                                  "  input %y : float32[4,64]\n" +
                                  weights("c", {64}, seed) + R"(  %s = Add(%x, %y) "add"
  %p = Mul(%s, %c) "scale"
  %r = Relu(%p) "relu"
  %d = Sub(%r, %x) "sub"
  output %d
  output %r
}
)";
  const std::string adds = "graph adds (opset \"\"=17) {\n  input %x : float32[4,64]\n  input %y : float32[4,64]\n" +
                           weights("c", {4, 64}, seed) + R"(  %s = Add(%x, %y) "add1"
  %t = Add(%s, %c) "add2"
  %u = Add(%t, %x) "add3"
  output %u
}
)";
  // A CNN of the ops a minimal vision accelerator has (samples/toy_backend's).
  const std::string small_cnn = "graph small_cnn (opset \"\"=17) {\n  input %x : float32[2,3,8,8]\n" +
                                weights("w1", {8, 3, 3, 3}, seed) + weights("b1", {8}, seed) +
                                weights("w2", {8, 8, 3, 3}, seed) + weights("wd", {10, 32}, seed) +
                                weights("bd", {10}, seed) + R"(  %c1 = Conv(%x, %w1, %b1) {pads: ints = [1, 1, 1, 1]} "conv1"
  %r1 = Relu(%c1) "relu1"
  %p1 = MaxPool(%r1) {kernel_shape: ints = [2, 2], strides: ints = [2, 2]} "pool1"
  %c2 = Conv(%p1, %w2) {pads: ints = [1, 1, 1, 1]} "conv2"
  %r2 = Relu(%c2) "relu2"
  %p2 = MaxPool(%r2) {kernel_shape: ints = [2, 2], strides: ints = [2, 2]} "pool2"
  %f = Flatten(%p2) "flatten"
  %d = Gemm(%f, %wd, %bd) {transB: int = 1} "dense"
  %y = Softmax(%d) {axis: int = -1} "softmax"
  output %y
  output %p1
}
)";
  return {{"cnn (Conv, Relu, MaxPool, GlobalAveragePool, Flatten, Gemm, Softmax)", cnn},
          {"small_cnn (Conv, Relu, MaxPool, Flatten, Gemm, Softmax)", small_cnn},
          {"mlp (MatMul, Add, Relu, Sigmoid)", mlp},
          {"elementwise (Add, Mul, Relu, Sub)", elementwise},
          {"adds (Add)", adds}};
}

std::vector<CandidateGraph> branch_candidates(uint32_t seed) {
  const std::string mlp = "graph branches_mlp (opset \"\"=17) {\n  input %x : float32[8,32]\n" +
                          weights("w1", {32, 32}, seed) + weights("w2", {32, 32}, seed) +
                          R"(  %m1 = MatMul(%x, %w1) "left_fc"
  %l = Relu(%m1) "left_relu"
  %m2 = MatMul(%x, %w2) "right_fc"
  %r = Sigmoid(%m2) "right_sigmoid"
  %y = Add(%l, %r) "join"
  output %y
}
)";
  const std::string adds = "graph branches_adds (opset \"\"=17) {\n  input %x : float32[8,64]\n" +
                           weights("c1", {8, 64}, seed) + weights("c2", {8, 64}, seed) + R"(  %l1 = Add(%x, %c1) "left1"
  %l2 = Add(%l1, %c1) "left2"
  %r1 = Add(%x, %c2) "right1"
  %r2 = Add(%r1, %x) "right2"
  %y = Add(%l2, %r2) "join"
  output %y
}
)";
  // Two Gemm branches joined by a Gemm's C input.
  const std::string gemms = "graph branches_gemm (opset \"\"=17) {\n  input %x : float32[8,32]\n" +
                            weights("w1", {32, 32}, seed) + weights("w2", {32, 32}, seed) + weights("w3", {32, 32}, seed) +
                            R"(  %m1 = Gemm(%x, %w1) "left_fc"
  %l = Relu(%m1) "left_relu"
  %r = Gemm(%x, %w2) "right_fc"
  %y = Gemm(%l, %w3, %r) "join"
  output %y
}
)";
  return {{"branches_mlp (MatMul, Relu, Sigmoid, Add)", mlp},
          {"branches_adds (Add)", adds},
          {"branches_gemm (Gemm, Relu)", gemms}};
}

std::vector<CandidateGraph> chain_candidates() {
  const std::string header = "graph chain (opset \"\"=17) {\n  input %x : float32[2,64]\n  input %y : float32[2,64]\n";
  const std::string gemm_header = header + weights("w", {64, 64}, 1);
  return {{"Add, Mul, Relu", header + R"(  %a = Add(%x, %y) "a"
  %b = Mul(%a, %x) "b"
  %out = Relu(%b) "c"
  output %out
}
)"},
          {"Add", header + R"(  %a = Add(%x, %y) "a"
  %b = Add(%a, %x) "b"
  %out = Add(%b, %y) "c"
  output %out
}
)"},
          {"Gemm, Relu", gemm_header + R"(  %a = Gemm(%x, %w, %y) "a"
  %b = Gemm(%a, %w, %x) "b"
  %out = Relu(%b) "c"
  output %out
}
)"}};
}

std::vector<CandidateGraph> fork_join_candidates() {
  const std::string header = "graph fork_join (opset \"\"=17) {\n  input %x : float32[2,64]\n  input %y : float32[2,64]\n";
  const std::string gemm = header + weights("w", {64, 64}, 1) + R"(  %a = Gemm(%x, %w, %y) "a"
  %b = Gemm(%a, %w) "b"
  %c = Relu(%a) "c"
  %d = Gemm(%c, %w, %b) "d"
  output %d
}
)";
  return {{"Add, Mul, Relu", header + R"(  %a = Add(%x, %y) "a"
  %b = Mul(%a, %a) "b"
  %c = Relu(%a) "c"
  %d = Add(%b, %c) "d"
  output %d
}
)"},
          {"Add", header + R"(  %a = Add(%x, %y) "a"
  %b = Add(%a, %x) "b"
  %c = Add(%a, %y) "c"
  %d = Add(%b, %c) "d"
  output %d
}
)"},
          {"Gemm, Relu", gemm}};
}

}  // namespace ge::backend_conformance
