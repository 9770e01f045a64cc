#pragma once
// Test doubles for core tests: an op library and a host-memory backend for three toy
// float32 ops — "AddOne" (elementwise), "Twice" and "Sum2" (elementwise sum of two
// inputs) — plus "DynamicRange" whose output length is the value of its int64 input, so
// its shape is only known at run time, and "Accumulate", which adds its input into an
// output it declares zeroed (atomic clean) and fails when that output was not zero.

#include <cstring>
#include <map>

#include "ge/plugin_api/backend.h"
#include "ge/op_registry.h"

namespace ge::testing {

class FakeOps final : public OpLibrary {
 public:
  FakeOps() {
    for (const char* op : {"AddOne", "Twice", "Sum2", "DynamicRange", "Accumulate"}) {
      OpSchemaInfo info;
      info.op_type = op;
      schemas_[op] = info;
    }
  }
  std::string name() const override { return "fake"; }
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type, int64_t) const override {
    auto it = schemas_.find(op_type);
    return domain.empty() && it != schemas_.end() ? &it->second : nullptr;
  }
  Status infer(Node& node, int64_t, const InputDataProvider& data, const OpRegistry&) const override {
    if (node.op_type() == "DynamicRange") {
      const Tensor* n = data ? data(node, 0) : nullptr;
      TensorDesc out(DataType::kFloat32, {n ? Dim::of(n->scalar_as_int64()) : Dim::unknown()});
      node.output(0)->set_desc(out);
      return Status::ok();
    }
    if (node.input(0) == nullptr) return invalid_argument(node.describe() + ": missing input");
    node.output(0)->set_desc(node.input(0)->desc());
    return Status::ok();
  }

 private:
  std::map<std::string, OpSchemaInfo> schemas_;
};

struct ElementCount {
  int64_t count;
};

inline int add_one(const KernelArgs& a) {
  auto n = static_cast<const ElementCount*>(a.params)->count;
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(a.outputs[0])[i] = static_cast<const float*>(a.inputs[0])[i] + 1;
  return 0;
}
inline int twice(const KernelArgs& a) {
  auto n = static_cast<const ElementCount*>(a.params)->count;
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(a.outputs[0])[i] = static_cast<const float*>(a.inputs[0])[i] * 2;
  return 0;
}
inline int sum2(const KernelArgs& a) {
  auto n = static_cast<const ElementCount*>(a.params)->count;
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(a.outputs[0])[i] = static_cast<const float*>(a.inputs[0])[i] + static_cast<const float*>(a.inputs[1])[i];
  }
  return 0;
}
/// Code of an Accumulate launch whose output did not start zeroed.
inline constexpr int kNotZeroed = 17;
inline int accumulate(const KernelArgs& a) {
  auto n = static_cast<const ElementCount*>(a.params)->count;
  auto* y = static_cast<float*>(a.outputs[0]);
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] != 0.0f) return kNotZeroed;
    y[i] += static_cast<const float*>(a.inputs[0])[i];
  }
  return 0;
}
inline int dynamic_range(const KernelArgs& a) {
  auto n = static_cast<const ElementCount*>(a.params)->count;
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(a.outputs[0])[i] = static_cast<float>(i);
  return 0;
}

class FakeStream final : public Stream {
 public:
  Status submit(std::span<const Task> tasks) override {
    for (const Task& t : tasks) {
      if (const auto* k = std::get_if<KernelTask>(&t)) {
        if (int rc = k->function(k->args)) return internal_error(std::string(k->name) + " failed with " + std::to_string(rc));
      } else if (const auto* m = std::get_if<MemsetTask>(&t)) {
        ++memsets;
        if (m->bytes > 0) std::memset(m->destination, m->value, m->bytes);
      } else if (const auto* c = std::get_if<MemcpyTask>(&t)) {
        if (c->bytes > 0) std::memmove(c->destination, c->source, c->bytes);
      }
    }
    return Status::ok();
  }
  Status synchronize() override { return Status::ok(); }
  static inline int memsets = 0;  ///< MemsetTasks run by any fake stream
};

class FakeDevice final : public Device {
 public:
  std::string name() const override { return "fake"; }
  bool host_accessible() const override { return true; }
  Result<void*> allocate(size_t bytes, size_t) override { return ::operator new(bytes); }
  void deallocate(void* p) override { ::operator delete(p); }
  Status copy_to_device(void* d, const void* s, size_t n) override { std::memcpy(d, s, n); return Status::ok(); }
  Status copy_to_host(void* d, const void* s, size_t n) override { std::memcpy(d, s, n); return Status::ok(); }
  Result<std::unique_ptr<Stream>> create_stream() override { return std::unique_ptr<Stream>(new FakeStream()); }
  Result<std::unique_ptr<Event>> create_event() override { return unsupported("no events"); }
};

class FakeBackend final : public Backend {
 public:
  std::string name() const override { return "fake"; }
  bool supports(const Node& node, std::string* reason) const override {
    if (node.op_type() == "AddOne" || node.op_type() == "Twice" || node.op_type() == "Sum2" ||
        node.op_type() == "DynamicRange" || node.op_type() == "Accumulate") {
      return true;
    }
    if (reason) *reason = "no kernel for " + node.op_type();
    return false;
  }
  Result<PreparedKernel> prepare(const Node& node) const override {
    ++prepared;
    PreparedKernel k;
    k.params = std::make_shared<ElementCount>(ElementCount{node.output(0)->desc().element_count()});
    k.function = node.op_type() == "AddOne"       ? add_one
                 : node.op_type() == "Twice"      ? twice
                 : node.op_type() == "Sum2"       ? sum2
                 : node.op_type() == "Accumulate" ? accumulate
                                                  : dynamic_range;
    if (node.op_type() == "Accumulate") k.zeroed.outputs = 1;
    k.name = "fake." + node.op_type();
    return k;
  }
  Device& device() override { return device_; }
  mutable int prepared = 0;

 private:
  FakeDevice device_;
};

}  // namespace ge::testing
