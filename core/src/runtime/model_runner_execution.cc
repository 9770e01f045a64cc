// Executing a loaded model: binding caller buffers (zero copy, or staged when misaligned
// or on a device the host cannot address), replaying the capture, asynchronous launches.
#include "model_runner_impl.h"
#include "../executor/output_binding.h"

#include <algorithm>

namespace ge {

namespace {

bool zero_copy_aligned(const void* address, size_t bytes) {
  return bytes == 0 || reinterpret_cast<uintptr_t>(address) % kZeroCopyAlignment == 0;
}

/// The aligned buffer `slot` of `buffers` (allocated on first use) for `bytes`.
Result<void*> aligned_buffer(Device& device, std::vector<void*>& buffers, size_t slot, size_t bytes) {
  if (buffers.size() <= slot) buffers.resize(slot + 1, nullptr);
  if (buffers[slot] == nullptr) {
    GE_ASSIGN_OR_RETURN(buffers[slot], device.allocate(std::max<size_t>(bytes, 1), kZeroCopyAlignment));
  }
  return buffers[slot];
}

}  // namespace

Status ModelRunner::Impl::allocate_staging() {
  if (device->host_accessible()) return Status::ok();
  for (size_t bytes : input_bytes) {
    GE_ASSIGN_OR_RETURN(void* p, device->allocate(std::max<size_t>(bytes, 1)));
    staged_inputs.push_back(p);
  }
  for (size_t bytes : output_bytes) {
    GE_ASSIGN_OR_RETURN(void* p, device->allocate(std::max<size_t>(bytes, 1)));
    staged_outputs.push_back(p);
  }
  return Status::ok();
}

Status ModelRunner::Impl::wait_in_flight() {
  if (!in_flight) return Status::ok();
  in_flight = false;
  return done->synchronize().with_context("graph '" + graph->name() + "': the previous asynchronous execute");
}

void ModelRunner::Impl::copy_tasks(const std::vector<IoCopy>& list, std::span<const void* const> inputs,
                                   std::span<void* const> outputs, std::vector<Task>& copies) const {
  for (const IoCopy& copy : list) {
    copies.push_back(MemcpyTask{const_cast<void*>(address(copy.destination, inputs, outputs)),
                                address(copy.source, inputs, outputs), copy.bytes});
  }
}

Status ModelRunner::Impl::run_copies(const std::vector<IoCopy>& list, std::span<const void* const> inputs,
                                     std::span<void* const> outputs, const char* what) {
  if (list.empty()) return Status::ok();
  std::vector<Task> copies;
  copy_tasks(list, inputs, outputs, copies);
  // Outside any capture: straight on the backend stream, whose run() may copy on the
  // calling thread (a submit would hand the copies to a worker and wait for it).
  return stream_pointers[0]->run(copies).with_context(what);
}

Status ModelRunner::Impl::check_launch(std::span<const void* const> inputs, std::span<void* const> outputs) const {
  if (inputs.size() != runtime_inputs.size() || outputs.size() != output_bytes.size()) {
    return invalid_argument("execute_bound: graph '" + graph->name() + "' takes " +
                            std::to_string(runtime_inputs.size()) + " inputs and " +
                            std::to_string(output_bytes.size()) + " outputs, got " + std::to_string(inputs.size()) +
                            " and " + std::to_string(outputs.size()));
  }
  if (caller_feature_map && arena == nullptr && arena_bytes > 0) {
    return invalid_argument("graph '" + graph->name() + "' was loaded for a caller-supplied feature map: bind " +
                            std::to_string(arena_bytes) + " bytes (bind_feature_map) before executing");
  }
  return Status::ok();
}

bool ModelRunner::Impl::find_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs) {
  // Zero copy only for buffers of the zero-copy alignment (seeds 000, 002).
  copied_inputs.clear();
  copied_outputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!zero_copy_aligned(inputs[i], input_bytes[i])) copied_inputs.push_back(i);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!zero_copy_aligned(outputs[i], output_bytes[i])) copied_outputs.push_back(i);
  }
  return !copied_inputs.empty() || !copied_outputs.empty();
}

Status ModelRunner::Impl::stage_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs,
                                           std::vector<const void*>& in, std::vector<void*>& out,
                                           std::vector<Task>& before, std::vector<Task>& after) {
  in.assign(inputs.begin(), inputs.end());
  out.assign(outputs.begin(), outputs.end());
  for (size_t i : copied_inputs) {
    GE_ASSIGN_OR_RETURN(void* buffer, aligned_buffer(*device, aligned_inputs, i, input_bytes[i]));
    before.push_back(MemcpyTask{buffer, inputs[i], input_bytes[i]});
    in[i] = buffer;
  }
  for (size_t i : copied_outputs) {
    GE_ASSIGN_OR_RETURN(out[i], aligned_buffer(*device, aligned_outputs, i, output_bytes[i]));
    after.push_back(MemcpyTask{outputs[i], out[i], output_bytes[i]});
  }
  return Status::ok();
}

Status ModelRunner::Impl::bind_io(std::span<const void* const> inputs, std::span<void* const> outputs) {
  for (const IoPatch& patch : patches) {
    const void* address_now = address(patch.location, inputs, outputs);
    if (patch.read != nullptr) *patch.read = address_now;
    if (patch.write != nullptr) *patch.write = const_cast<void*>(address_now);
  }
  for (const PatchedCopy& copy : patched_copies) {
    GE_RETURN_IF_ERROR(captured->update_task_group(copy.group, {tasks[copy.stream].data() + copy.task, 1}));
  }
  return Status::ok();
}

Status ModelRunner::execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  GE_RETURN_IF_ERROR(m.check_launch(inputs, outputs));
  if (!m.find_misaligned(inputs, outputs)) return execute_aligned(inputs, outputs);
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<Task> before, after;
  GE_RETURN_IF_ERROR(m.stage_misaligned(inputs, outputs, in, out, before, after));
  if (!before.empty()) GE_RETURN_IF_ERROR(m.stream_pointers[0]->run(before).with_context("copying misaligned inputs"));
  GE_RETURN_IF_ERROR(execute_aligned(in, out));
  return after.empty() ? Status::ok() : m.stream_pointers[0]->run(after).with_context("copying misaligned outputs");
}

Status ModelRunner::execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs,
                                  void* feature_map) {
  GE_RETURN_IF_ERROR(bind_feature_map(feature_map));
  return execute_bound(inputs, outputs);
}

Status ModelRunner::bind_feature_map(void* base) {
  Impl& m = *impl_;
  const std::string who = "graph '" + m.graph->name() + "'";
  if (!m.caller_feature_map) {
    return invalid_argument(who +
                            " owns its feature map: load it with ModelRunnerOptions::caller_feature_map to bind one");
  }
  if (base == nullptr) return invalid_argument(who + ": bind_feature_map needs memory, got null");
  if (reinterpret_cast<uintptr_t>(base) % m.arena_alignment != 0) {
    return invalid_argument(who + ": a feature map must be " + std::to_string(m.arena_alignment) + "-byte aligned");
  }
  if (base == m.arena) return Status::ok();
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  return m.move_feature_map(base);
}

size_t ModelRunner::feature_map_alignment() const { return impl_->arena_alignment; }

size_t ModelRunner::super_kernel_count() const { return impl_->super_kernels.size(); }

Status ModelRunner::execute_bound_async(std::span<const void* const> inputs, std::span<void* const> outputs,
                                        Stream& stream) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  GE_RETURN_IF_ERROR(m.check_launch(inputs, outputs));
  std::vector<const void*> in(inputs.begin(), inputs.end());
  std::vector<void*> out(outputs.begin(), outputs.end());
  std::vector<Task> head, tail;
  if (m.ready == nullptr) {
    GE_ASSIGN_OR_RETURN(m.ready, m.device->create_event());
    GE_ASSIGN_OR_RETURN(m.done, m.device->create_event());
  }
  head.push_back(EventWaitTask{m.ready.get()});
  if (m.find_misaligned(inputs, outputs)) GE_RETURN_IF_ERROR(m.stage_misaligned(inputs, outputs, in, out, head, tail));
  GE_RETURN_IF_ERROR(m.bind_io(in, out));
  m.copy_tasks(m.copies_in, in, out, head);
  std::vector<Task> after_model;
  m.copy_tasks(m.copies_out, in, out, after_model);
  tail.insert(tail.begin(), after_model.begin(), after_model.end());  // pass-through outputs before the copy-outs
  tail.push_back(EventRecordTask{m.done.get()});
  // The caller's stream: what it queued so far comes first; what it queues next waits.
  const Task record_ready = EventRecordTask{m.ready.get()};
  GE_RETURN_IF_ERROR(stream.submit({&record_ready, 1}).with_context("execute_bound_async: the caller's stream"));
  GE_RETURN_IF_ERROR(m.stream_pointers[0]->submit(head));
  m.in_flight = true;  // from here the tables are the launch's: the next execute waits for `done`
  if (m.captured != nullptr) {
    GE_RETURN_IF_ERROR(m.captured->execute(m.stream_pointers).with_context("graph '" + m.graph->name() + "'"));
  }
  GE_RETURN_IF_ERROR(m.stream_pointers[0]->submit(tail));
  const Task wait_done = EventWaitTask{m.done.get()};
  return stream.submit({&wait_done, 1}).with_context("execute_bound_async: the caller's stream");
}

std::vector<std::string> ModelRunner::copied_io() const {
  const Impl& m = *impl_;
  std::vector<std::string> names;
  for (size_t i : m.copied_inputs) names.push_back("input '" + m.runtime_inputs[i]->name() + "'");
  for (size_t i : m.copied_outputs) names.push_back("output '" + m.graph->outputs()[i]->name() + "'");
  return names;
}

Status ModelRunner::execute_aligned(std::span<const void* const> inputs, std::span<void* const> outputs) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.bind_io(inputs, outputs));
  GE_RETURN_IF_ERROR(m.run_copies(m.copies_in, inputs, outputs, "copying graph inputs into the feature map"));
  if (m.captured != nullptr) {
    GE_RETURN_IF_ERROR(
        m.captured->run(m.stream_pointers, m.cancellation).with_context("graph '" + m.graph->name() + "'"));
  }
  return m.run_copies(m.copies_out, inputs, outputs, "copying pass-through graph outputs");
}

Status ModelRunner::execute(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  Impl& m = *impl_;
  struct Watch {  // the token is this execute's only
    Impl& impl;
    ~Watch() { impl.cancellation = nullptr; }
  } watch{m};
  m.cancellation = options.cancellation;
  const Graph& g = *m.graph;
  std::vector<const Tensor*> bound(m.runtime_inputs.size(), nullptr);
  for (const auto& [name, tensor] : inputs) {
    size_t index = bound.size();
    for (size_t i = 0; i < bound.size(); ++i) {
      if (m.runtime_inputs[i]->name() == name) index = i;
    }
    if (index == bound.size()) return invalid_argument("graph '" + g.name() + "': unknown input '" + name + "'");
    if (bound[index] != nullptr)
      return invalid_argument("graph '" + g.name() + "': input '" + name + "' is bound twice");
    const TensorDesc& desc = m.runtime_inputs[index]->desc();
    if (tensor.dtype() != desc.dtype || tensor.shape() != desc.static_dims()) {
      return invalid_argument("graph '" + g.name() + "': input '" + name + "' is " +
                              TensorDesc::of(tensor.dtype(), tensor.shape()).to_string() +
                              " but the loaded model expects " + desc.to_string());
    }
    bound[index] = &tensor;
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    if (bound[i] == nullptr)
      return invalid_argument("graph '" + g.name() + "': input '" + m.runtime_inputs[i]->name() + "' is not bound");
  }
  std::vector<const Tensor*> bindings(g.outputs().size(), nullptr);
  if (options.bound_outputs != nullptr && !options.bound_outputs->empty()) {
    GE_ASSIGN_OR_RETURN(bindings, bind_outputs(g.outputs(), *options.bound_outputs, inputs));
  }
  outputs.clear();
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const TensorDesc& desc = g.outputs()[i]->desc();
    if (const Tensor* bound = bindings[i]) {  // written in place (or through staging)
      GE_RETURN_IF_ERROR(check_bound_output(g.outputs()[i]->name(), *bound, desc.dtype, desc.static_dims()));
      outputs.push_back(*bound);
      continue;
    }
    outputs.push_back(m.output_pool ? m.output_pool->allocate(desc.dtype, desc.static_dims())
                                    : Tensor::zeros(desc.dtype, desc.static_dims()));
  }
  std::vector<const void*> in_addresses(bound.size());
  std::vector<void*> out_addresses(outputs.size());
  if (m.device->host_accessible()) {
    for (size_t i = 0; i < bound.size(); ++i) in_addresses[i] = bound[i]->raw_data();
    for (size_t i = 0; i < outputs.size(); ++i) out_addresses[i] = outputs[i].raw_data();
    return execute_bound(in_addresses, out_addresses);
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    if (m.input_bytes[i] > 0)
      GE_RETURN_IF_ERROR(m.device->copy_to_device(m.staged_inputs[i], bound[i]->raw_data(), m.input_bytes[i]));
    in_addresses[i] = m.staged_inputs[i];
  }
  for (size_t i = 0; i < outputs.size(); ++i) out_addresses[i] = m.staged_outputs[i];
  GE_RETURN_IF_ERROR(execute_bound(in_addresses, out_addresses));
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (m.output_bytes[i] > 0)
      GE_RETURN_IF_ERROR(m.device->copy_to_host(outputs[i].raw_data(), m.staged_outputs[i], m.output_bytes[i]));
  }
  return Status::ok();
}

}  // namespace ge
