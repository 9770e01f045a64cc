#pragma once
/// The backend's Add kernel on float32[n] set up to add one to a vector, back and forth
/// between two device buffers: a run of k tasks leaves exactly k in the buffer only when
/// the tasks ran in order, one after another.

#include <memory>
#include <vector>

#include "device_graph.h"
#include "environment.h"

namespace ge::backend_conformance {

class AddOneKernel {
 public:
  /// kUnsupported when the backend has no float32 Add.
  static Result<std::unique_ptr<AddOneKernel>> create(Environment& env, size_t elements);

  /// Adds one to `a` into `b`, and to `b` into `a`.
  const KernelTask& a_to_b() const { return graph_->kernels()[0]; }
  const KernelTask& b_to_a() const { return b_to_a_; }
  /// Tasks that add one `count` times, starting from `a` (ending in `a` for an even count).
  std::vector<Task> chain(int count) const;

  void* a() const { return graph_->address("a"); }
  void* b() const { return graph_->address("b"); }
  size_t bytes() const { return elements_ * sizeof(float); }
  /// Sets every element of `a` to `value` and poisons `b`.
  Status reset(float value);
  /// Ok when every element of buffer `a` (or `b`) is `value`, else what differs.
  Status expect(bool in_a, float value) const;
  DeviceGraph& graph() const { return *graph_; }

 private:
  AddOneKernel() = default;
  size_t elements_ = 0;
  std::unique_ptr<DeviceGraph> graph_;
  std::vector<const void*> b_to_a_inputs_;
  std::vector<void*> b_to_a_outputs_;
  KernelTask b_to_a_;
};

}  // namespace ge::backend_conformance
