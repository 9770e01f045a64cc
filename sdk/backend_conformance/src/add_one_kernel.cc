#include "add_one_kernel.h"

#include <cmath>
#include <string>

namespace ge::backend_conformance {

Result<std::unique_ptr<AddOneKernel>> AddOneKernel::create(Environment& env, size_t elements) {
  const std::string type = "float32[" + std::to_string(elements) + "]";
  const std::string text = "graph add_one (opset \"\"=17) {\n  input %a : " + type + "\n  input %one : " + type +
                           "\n  %b = Add(%a, %one) \"add_one\"\n  output %b\n}";
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_and_infer(text, env.ops()));
  if (std::string missing = unsupported_nodes(env.backend(), *graph); !missing.empty()) {
    return unsupported("backend '" + env.backend().name() + "' has no float32 Add, which this test chains: " + missing);
  }
  std::unique_ptr<AddOneKernel> kernel(new AddOneKernel());
  kernel->elements_ = elements;
  GE_ASSIGN_OR_RETURN(kernel->graph_, DeviceGraph::load(std::move(graph), env.backend()));
  GE_RETURN_IF_ERROR(kernel->graph_->write("one", Tensor::from_vector<float>({static_cast<int64_t>(elements)},
                                                                          std::vector<float>(elements, 1.0f))));
  kernel->b_to_a_inputs_ = {kernel->b(), kernel->graph_->address("one")};
  kernel->b_to_a_outputs_ = {kernel->a()};
  kernel->b_to_a_ = kernel->a_to_b();
  kernel->b_to_a_.args.inputs = kernel->b_to_a_inputs_.data();
  kernel->b_to_a_.args.outputs = kernel->b_to_a_outputs_.data();
  return kernel;
}

std::vector<Task> AddOneKernel::chain(int count) const {
  std::vector<Task> tasks;
  for (int i = 0; i < count; ++i) tasks.push_back(i % 2 == 0 ? a_to_b() : b_to_a());
  return tasks;
}

Status AddOneKernel::reset(float value) {
  const auto n = static_cast<int64_t>(elements_);
  GE_RETURN_IF_ERROR(graph_->write("a", Tensor::from_vector<float>({n}, std::vector<float>(elements_, value))));
  // A NaN in b: a task that read b before the previous one wrote it poisons the result.
  return graph_->write("b", Tensor::from_vector<float>({n}, std::vector<float>(elements_, std::nanf(""))));
}

Status AddOneKernel::expect(bool in_a, float value) const {
  GE_ASSIGN_OR_RETURN(Tensor tensor, graph_->read(in_a ? "a" : "b"));
  const auto values = tensor.values<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != value) {
      return internal_error(std::string("buffer ") + (in_a ? "a" : "b") + " element " + std::to_string(i) + " is " +
                            std::to_string(values[i]) + ", want " + std::to_string(value) +
                            " (tasks ran out of order, overlapped, or were dropped)");
    }
  }
  return Status::ok();
}

}  // namespace ge::backend_conformance
