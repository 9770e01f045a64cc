// Large elementwise ops that only the reference kernels run (QuantizeLinear,
// DequantizeLinear, ge::QLinearAdd with one scale, Erf, ...), split across the kernel's
// threads: the reference kernel prepared for a unit of kGrain elements (and one for the
// last, shorter unit) runs on consecutive slices of the flat tensors, each thread a run of
// units. Elementwise over flat indices (reference_kernels::is_format_agnostic), so the result is
// the whole kernel's, byte for byte, in any storage format. The kernel keeps the reference
// kernel's name (which needs no workspace): a model file compiled at one thread count runs
// at another.

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dnnl_fast_paths.h"
#include "dnnl_openmp.h"
#include "dnnl_program.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge::cpu_dnnl {
namespace {

// Elements per unit of work: large enough for the kernels' vector loops, small enough
// that two threads share a layer's activations.
constexpr int64_t kGrain = 32768;
// A fork/join costs about a microsecond; below four units one thread does as well.
constexpr int64_t kMinimumElements = 4 * kGrain;
constexpr size_t kMaxInputs = 16;

struct Split {
  PreparedKernel unit, tail;         // the reference kernel for kGrain elements; for the last unit
  int64_t count = 0;                 // output elements
  std::vector<size_t> input_stride;  // bytes per element of each full input; 0: one element (or none)
  size_t output_stride = 0;
};

int split_step(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const Split*>(params);
  if (args.outputs[0] == nullptr) return reference_kernels::kKernelMissingAddress;
  std::atomic<int> failure{reference_kernels::kKernelOk};
  parallel_chunks(p.count, kGrain, [&](int64_t begin, int64_t end) {
    std::array<const void*, kMaxInputs> inputs{};
    for (int64_t at = begin; at < end; at += kGrain) {
      const PreparedKernel& kernel = end - at >= kGrain ? p.unit : p.tail;
      for (size_t i = 0; i < p.input_stride.size(); ++i) {
        const auto* base = static_cast<const char*>(args.inputs[i]);
        inputs[i] = base == nullptr ? nullptr : base + at * static_cast<int64_t>(p.input_stride[i]);
      }
      void* output = static_cast<char*>(args.outputs[0]) + at * static_cast<int64_t>(p.output_stride);
      const KernelArgs unit{inputs.data(), &output, nullptr, kernel.params.get()};
      const int code = kernel.function(unit);
      if (code != reference_kernels::kKernelOk) failure.store(code, std::memory_order_relaxed);
    }
  });
  return failure.load();
}

// The reference kernel of `node` on `elements` elements: the node alone in a graph whose
// full-shape values are [1, ..., 1, elements] (its rank, so that an axis attribute stays
// valid) and whose single-element inputs are the node's own (constants included).
Result<PreparedKernel> prepare_unit(const Node& node, std::string_view backend, int64_t elements) {
  Graph graph;
  if (node.graph() != nullptr) {
    for (const auto& [domain, version] : node.graph()->opset_imports()) graph.set_opset_import(domain, version);
  }
  const TensorDesc& out = node.output(0)->desc();
  std::vector<int64_t> dims(static_cast<size_t>(out.rank()), 1);
  dims.back() = elements;
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.input_count(); ++i) {
    const Value* input = node.input(i);
    const std::string name = "x" + std::to_string(i);
    if (input == nullptr) {
      inputs.push_back(nullptr);
    } else if (input->desc().shape != out.shape) {  // one element (is_format_agnostic)
      TensorDesc desc = input->desc();
      desc.format.clear();
      inputs.push_back(input->constant() != nullptr ? graph.add_initializer(name, *input->constant())
                                                    : graph.add_input(name, desc));
    } else {
      inputs.push_back(graph.add_input(name, TensorDesc::of(input->desc().dtype, dims)));
    }
  }
  Node* unit = graph.add_node(node.op_type(), inputs, 1, node.name(), {"y"});
  unit->set_domain(node.domain());
  for (const auto& [key, attribute] : node.attributes()) unit->set_attribute(key, attribute);
  unit->output(0)->set_desc(TensorDesc::of(out.dtype, dims));
  return reference_kernels::prepare(*unit, backend);
}

}  // namespace

std::optional<PreparedKernel> prepare_split(const Node& node, std::string_view backend, const Options& options) {
  if (options.threads <= 1 || node.output_count() != 1 || node.input_count() > kMaxInputs ||
      !reference_kernels::is_format_agnostic(node)) {
    return std::nullopt;
  }
  const TensorDesc& out = node.output(0)->desc();
  if (out.rank() < 1 || out.element_count() < kMinimumElements) return std::nullopt;
  // Kernels that need no workspace and no zeroed memory: slices of one launch share none.
  auto usable = [](const Result<PreparedKernel>& kernel) {
    return kernel.is_ok() && kernel->workspace_bytes == 0 && !kernel->zeroed.any();
  };
  Result<PreparedKernel> whole = reference_kernels::prepare(node, backend);
  if (!usable(whole)) return std::nullopt;
  auto split = std::make_shared<Split>();
  split->count = out.element_count();
  Result<PreparedKernel> unit = prepare_unit(node, backend, kGrain);
  if (!usable(unit)) return std::nullopt;
  split->unit = std::move(*unit);
  if (split->count % kGrain != 0) {
    Result<PreparedKernel> tail = prepare_unit(node, backend, split->count % kGrain);
    if (!usable(tail)) return std::nullopt;
    split->tail = std::move(*tail);
  }
  for (const Value* input : node.inputs()) {
    const bool full = input != nullptr && input->desc().shape == out.shape;
    split->input_stride.push_back(full ? element_size(input->desc().dtype) : 0);
  }
  split->output_stride = element_size(out.dtype);
  ProgramBuilder builder;
  builder.add_host(&split_step, std::move(split));
  return std::move(builder).build(whole->name, options.threads);
}

}  // namespace ge::cpu_dnnl
