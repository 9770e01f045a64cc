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

// ---- RoiAlign: the regions split across the kernel's threads ----

// Regions per unit of work: a pooled region is C x output_height x output_width bilinear
// averages (256 x 7 x 7 in torchvision's detectors), so a few already fill a thread.
constexpr int64_t kRoisPerUnit = 8;

struct RoiSplit {
  PreparedKernel unit, tail;  // the reference kernel for kRoisPerUnit regions; for the last unit
  int64_t rois = 0;
  size_t box_bytes = 0;     // one region's four coordinates
  size_t pooled_bytes = 0;  // one region's output
  size_t table_bytes = 0;   // the sample table a unit tabulates a region's samples into
};

int roi_split_step(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const RoiSplit*>(params);  // at least 2 * kRoisPerUnit regions
  if (args.inputs[0] == nullptr || args.inputs[1] == nullptr || args.inputs[2] == nullptr ||
      args.outputs[0] == nullptr) {
    return reference_kernels::kKernelMissingAddress;
  }
  std::atomic<int> failure{reference_kernels::kKernelOk};
  parallel_chunks(p.rois, kRoisPerUnit, [&](int64_t begin, int64_t end) {
    // Each thread its own sample table, made once per thread (the launch workspace is
    // the whole reference kernel's: one table).
    thread_local std::vector<double> table;
    if (table.size() * sizeof(double) < p.table_bytes)
      table.resize((p.table_bytes + sizeof(double) - 1) / sizeof(double));
    for (int64_t at = begin; at < end; at += kRoisPerUnit) {
      const PreparedKernel& kernel = end - at >= kRoisPerUnit ? p.unit : p.tail;
      const void* inputs[3] = {args.inputs[0],
                               static_cast<const char*>(args.inputs[1]) + at * static_cast<int64_t>(p.box_bytes),
                               static_cast<const int64_t*>(args.inputs[2]) + at};
      void* output = static_cast<char*>(args.outputs[0]) + at * static_cast<int64_t>(p.pooled_bytes);
      const KernelArgs unit{inputs, &output, p.table_bytes > 0 ? table.data() : nullptr, kernel.params.get()};
      const int code = kernel.function(unit);
      if (code != reference_kernels::kKernelOk) failure.store(code, std::memory_order_relaxed);
    }
  });
  return failure.load();
}

// The reference RoiAlign of `node` for `rois` regions: X as the node's, rois [rois, 4],
// batch_indices [rois], the node's attributes.
Result<PreparedKernel> prepare_roi_unit(const Node& node, std::string_view backend, int64_t rois) {
  Graph graph;
  if (node.graph() != nullptr) {
    for (const auto& [domain, version] : node.graph()->opset_imports()) graph.set_opset_import(domain, version);
  }
  const Value* x = node.input(0);
  Value* image =
      x->constant() != nullptr ? graph.add_initializer("x", *x->constant()) : graph.add_input("x", x->desc());
  Value* boxes = graph.add_input("rois", TensorDesc::of(node.input(1)->desc().dtype, {rois, 4}));
  Value* batch = graph.add_input("batch_indices", TensorDesc::of(DataType::kInt64, {rois}));
  Node* unit = graph.add_node(node.op_type(), {image, boxes, batch}, 1, node.name(), {"y"});
  for (const auto& [key, attribute] : node.attributes()) unit->set_attribute(key, attribute);
  std::vector<int64_t> dims = node.output(0)->desc().static_dims();
  dims[0] = rois;
  unit->output(0)->set_desc(TensorDesc::of(node.output(0)->desc().dtype, dims));
  return reference_kernels::prepare(*unit, backend);
}

}  // namespace

std::optional<PreparedKernel> prepare_roi_split(const Node& node, std::string_view backend, const Options& options) {
  if (options.threads <= 1 || !is_onnx_domain(node) || node.op_type() != "RoiAlign" || node.input_count() != 3 ||
      node.output_count() != 1 || reference_kernels::has_non_plain_format(node)) {
    return std::nullopt;
  }
  for (const Value* value : {node.input(0), node.input(1), node.input(2), node.output(0)}) {
    if (value == nullptr || !value->desc().is_static()) return std::nullopt;
  }
  const std::vector<int64_t> y_dims = node.output(0)->desc().static_dims();
  if (y_dims.size() != 4 || y_dims[0] < 2 * kRoisPerUnit || node.input(2)->desc().dtype != DataType::kInt64) {
    return std::nullopt;
  }
  Result<PreparedKernel> whole = reference_kernels::prepare(node, backend);
  if (!whole.is_ok() || whole->zeroed.any()) return std::nullopt;
  auto split = std::make_shared<RoiSplit>();
  split->rois = y_dims[0];
  Result<PreparedKernel> unit = prepare_roi_unit(node, backend, kRoisPerUnit);
  if (!unit.is_ok() || unit->zeroed.any() || unit->workspace_bytes != whole->workspace_bytes) return std::nullopt;
  split->unit = std::move(*unit);
  if (split->rois % kRoisPerUnit != 0) {
    Result<PreparedKernel> tail = prepare_roi_unit(node, backend, split->rois % kRoisPerUnit);
    if (!tail.is_ok() || tail->zeroed.any()) return std::nullopt;
    split->tail = std::move(*tail);
  }
  split->box_bytes = 4 * element_size(node.input(1)->desc().dtype);
  split->pooled_bytes =
      static_cast<size_t>(y_dims[1] * y_dims[2] * y_dims[3]) * element_size(node.output(0)->desc().dtype);
  split->table_bytes = whole->workspace_bytes;
  ProgramBuilder builder;
  builder.add_host(&roi_split_step, std::move(split));
  PreparedKernel kernel = std::move(builder).build(whole->name, options.threads);
  // The reference kernel's workspace (unused here): a model file compiled at one thread
  // count, where the reference kernel ran, runs at another with the same plan.
  kernel.workspace_bytes = whole->workspace_bytes;
  return kernel;
}

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
