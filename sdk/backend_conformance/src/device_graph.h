#pragma once
/// A small graph run kernel by kernel on one backend, every value in device memory of its
/// own (no planner, no task sink): what the kernel, stream and capture tests drive by hand.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "device_buffer.h"
#include "ge/plugin_api/backend.h"
#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::backend_conformance {

/// Bytes every buffer of a DeviceGraph starts as (outputs a kernel does not write keep
/// it: 0xFF... is a NaN, never a reference result) and that every guard region keeps.
inline constexpr std::byte kPoison{0xFF};
/// Bytes past the end of every value's buffer that no kernel may write.
inline constexpr size_t kGuardBytes = 64;

/// Parses `text` (ge/graph_text.h) and infers it with `ops`.
Result<std::unique_ptr<Graph>> parse_and_infer(std::string_view text, const OpRegistry& ops);

/// Empty when `backend` supports every node of `graph`; else one line per node it does
/// not support, with the backend's reason.
std::string unsupported_nodes(const Backend& backend, const Graph& graph);

class DeviceGraph {
 public:
  /// Prepares every node of `graph` (inferred, static shapes) on `backend`, in topological
  /// order, and gives every value a buffer of its bytes plus kGuardBytes. Initializers are
  /// copied in; every other byte is kPoison.
  static Result<std::unique_ptr<DeviceGraph>> load(std::unique_ptr<Graph> graph, Backend& backend);
  ~DeviceGraph();

  const Graph& graph() const { return *graph_; }
  Backend& backend() const { return backend_; }
  Device& device() const { return backend_.device(); }

  /// Copies `data` (the value's dtype and byte size) into the buffer of value `name`.
  Status write(const std::string& name, const Tensor& data);
  /// The bytes of value `name` as a host tensor of its desc.
  Result<Tensor> read(const std::string& name) const;
  /// The device address of value `name`; null for an unknown name.
  void* address(const std::string& name) const;

  /// One KernelTask per node, in the order load() prepared them; their address arrays live
  /// as long as this object.
  const std::vector<KernelTask>& kernels() const { return tasks_; }
  /// The kernels, each after MemsetTasks zeroing what it declares zeroed (atomic clean,
  /// ZeroedMemory), as a runtime would.
  std::vector<Task> tasks() const;
  const Node& node(size_t i) const { return *order_[i]; }
  /// The sizes of kernel i's address arrays (CaptureStream::launch needs them).
  size_t input_count(size_t i) const { return inputs_[i].size(); }
  size_t output_count(size_t i) const { return outputs_[i].size(); }

  /// Submits every kernel to `stream` and synchronizes.
  Status run(Stream& stream) const;
  /// Ok when every guard region still holds kPoison; else names the value written past.
  Status check_guards() const;

 private:
  explicit DeviceGraph(std::unique_ptr<Graph> graph, Backend& backend) : graph_(std::move(graph)), backend_(backend) {}

  std::unique_ptr<Graph> graph_;
  Backend& backend_;
  std::vector<const Node*> order_;
  std::vector<PreparedKernel> kernels_;
  std::unordered_map<const Value*, DeviceBuffer> buffers_;
  std::vector<DeviceBuffer> workspaces_;
  std::vector<std::vector<const void*>> inputs_;
  std::vector<std::vector<void*>> outputs_;
  std::vector<std::string> descriptions_;
  std::vector<KernelTask> tasks_;
  std::vector<std::vector<MemsetTask>> zeroing_;  // per kernel, run before it
};

}  // namespace ge::backend_conformance
