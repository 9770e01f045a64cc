/// Views, reshapes, concatenation and splits, slicing and indexing, reductions, casts.

#include <limits>

#include "importer.h"
#include "mapping_util.h"

namespace ge::torchscript {
namespace {

void map_reshape(Importer& im, const jit::Node* n) { im.bind(n->output(), reshape_to_output(im, n, im.tensor(n, 0))); }

void map_expand(Importer& im, const jit::Node* n) {
  im.bind(n->output(), im.op("Expand", {im.tensor(n, 0), im.const_i64(output_sizes(im, n))}));
}

void map_permute(Importer& im, const jit::Node* n) {
  const int64_t rank = im.input_rank(n, 0);
  std::vector<int64_t> perm = im.ints(n, 1);
  for (int64_t& p : perm) p = normalise_axis(p, rank);
  im.bind(n->output(), im.op("Transpose", {im.tensor(n, 0)}, {{"perm", perm}}));
}

void map_transpose(Importer& im, const jit::Node* n) {
  const int64_t rank = im.input_rank(n, 0);
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  if (rank >= 2) {
    int64_t a = rank - 2, b = rank - 1;  // aten::t and numpy_T of rank 2
    if (n->inputs().size() > 2) {
      a = normalise_axis(im.integer(n, 1), rank);
      b = normalise_axis(im.integer(n, 2), rank);
    }
    std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  }
  im.bind(n->output(), rank < 2 ? im.tensor(n, 0) : im.op("Transpose", {im.tensor(n, 0)}, {{"perm", perm}}));
}

void map_cat(Importer& im, const jit::Node* n) {
  const std::vector<Value*> parts = im.tensor_list(n, 0);
  const int64_t rank = static_cast<int64_t>(output_sizes(im, n).size());
  im.bind(n->output(), parts.size() == 1 ? parts[0]
                                         : im.op("Concat", parts, {{"axis", normalise_axis(im.integer(n, 1), rank)}}));
}

void map_stack(Importer& im, const jit::Node* n) {
  const int64_t rank = static_cast<int64_t>(output_sizes(im, n).size());
  const int64_t axis = normalise_axis(im.integer(n, 1), rank);
  std::vector<Value*> parts;
  for (Value* v : im.tensor_list(n, 0)) parts.push_back(im.op("Unsqueeze", {v, im.const_i64({axis})}));
  im.bind(n->output(), parts.size() == 1 ? parts[0] : im.op("Concat", parts, {{"axis", axis}}));
}

/// chunk / split / split_with_sizes / unbind: a Split into the recorded pieces' extents.
void map_split(Importer& im, const jit::Node* n, size_t dim_input, bool squeeze) {
  const int64_t rank = im.input_rank(n, 0);
  const int64_t axis = normalise_axis(im.integer(n, dim_input), rank);
  auto rec = im.example_list(n->output());
  std::vector<int64_t> extents;
  for (const at::Tensor& t : rec) extents.push_back(squeeze ? 1 : t.size(axis));
  Node* split = im.add("Split", {im.tensor(n, 0), im.const_i64(extents)}, extents.size(), {{"axis", axis}});
  std::vector<Value*> pieces(split->outputs().begin(), split->outputs().end());
  if (squeeze) {
    for (Value*& p : pieces) p = im.op("Squeeze", {p, im.const_i64({axis})});
  }
  im.bind_list(n->output(), std::move(pieces));
}

void map_slice(Importer& im, const jit::Node* n) {
  // aten::slice(self, dim, start, end, step)
  const int64_t rank = im.input_rank(n, 0);
  const int64_t axis = normalise_axis(im.integer(n, 1), rank);
  const int64_t start = im.is_none(n, 2) ? 0 : im.integer(n, 2);
  const int64_t end = im.is_none(n, 3) ? std::numeric_limits<int64_t>::max() : im.integer(n, 3);
  const int64_t step = im.integer(n, 4);
  const int64_t extent = im.input_example(n, 0).size(axis);
  if (start == 0 && end >= extent && step == 1) {
    im.bind(n->output(), im.tensor(n, 0));
    return;
  }
  im.bind(n->output(), im.op("Slice", {im.tensor(n, 0), im.const_i64({start}), im.const_i64({end}),
                                       im.const_i64({axis}), im.const_i64({step})}));
}

void map_narrow(Importer& im, const jit::Node* n) {
  // aten::narrow(self, dim, start, length)
  const int64_t axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  const int64_t start = im.integer(n, 2);
  im.bind(n->output(), im.op("Slice", {im.tensor(n, 0), im.const_i64({start}), im.const_i64({start + im.integer(n, 3)}),
                                       im.const_i64({axis})}));
}

void map_select(Importer& im, const jit::Node* n) {
  // aten::select(self, dim, index)
  const int64_t axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  Value* index = im.scalar(static_cast<double>(im.integer(n, 2)), DataType::kInt64);
  im.bind(n->output(), im.op("Gather", {im.tensor(n, 0), index}, {{"axis", axis}}));
}

void map_index_select(Importer& im, const jit::Node* n) {
  const int64_t axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  im.bind(n->output(), im.op("Gather", {im.tensor(n, 0), im.tensor(n, 2)}, {{"axis", axis}}));
}

void map_index(Importer& im, const jit::Node* n) {
  // aten::index(self, Tensor?[] indices): one integer index tensor, the others None.
  const jit::Node* list = n->inputs().at(1)->node();
  if (list->kind() != c10::prim::ListConstruct) fail("indices that are not a list literal are not mapped");
  int64_t axis = -1;
  for (size_t i = 0; i < list->inputs().size(); ++i) {
    if (!im.is_none(list, i)) {
      if (axis >= 0) fail("indexing with more than one index tensor is not mapped");
      axis = static_cast<int64_t>(i);
    }
  }
  if (axis < 0) fail("indexing with no index tensor");
  const DataType dtype = to_data_type(im.input_example(list, static_cast<size_t>(axis)).scalar_type());
  if (dtype == DataType::kBool || dtype == DataType::kUInt8) fail("indexing with a boolean mask is not mapped");
  im.bind(n->output(), im.op("Gather", {im.tensor(n, 0), im.tensor(list, static_cast<size_t>(axis))}, {{"axis", axis}}));
}

/// Reductions over `dims` (input 1: a list, or None / empty for all) with keepdim (input 2).
void reduce(Importer& im, const jit::Node* n, const std::string& op_type, bool axes_as_input) {
  const int64_t rank = im.input_rank(n, 0);
  std::vector<int64_t> axes;
  bool keepdims = false;
  if (n->inputs().size() >= 3 && !im.is_none(n, 1) && im.constant(n, 1).isIntList()) {
    axes = im.ints(n, 1);
    keepdims = im.boolean(n, 2);
  } else if (n->inputs().size() >= 3 && !im.is_none(n, 1) && im.constant(n, 1).isInt()) {
    axes = {im.integer(n, 1)};
    keepdims = im.boolean(n, 2);
  }
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) a = normalise_axis(a, rank);
  const DataType out = im.output_dtype(n);
  Value* x = operand(im, n, 0, out);
  std::map<std::string, Attribute> attributes{{"keepdims", int64_t{keepdims ? 1 : 0}}};
  if (axes_as_input) {
    im.bind(n->output(), im.op(op_type, {x, im.const_i64(axes)}, std::move(attributes)));
  } else {
    attributes["axes"] = axes;
    im.bind(n->output(), im.op(op_type, {x}, std::move(attributes)));
  }
}

void map_max_dim(Importer& im, const jit::Node* n, const std::string& reduce_op, const std::string& arg_op) {
  // aten::max.dim(self, dim, keepdim) -> (values, indices); aten::max(self) -> all
  if (n->outputs().size() == 1 && n->inputs().size() == 1) {
    const int64_t rank = im.input_rank(n, 0);
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    im.bind(n->output(), im.op(reduce_op, {im.tensor(n, 0)}, {{"axes", axes}, {"keepdims", int64_t{0}}}));
    return;
  }
  if (n->outputs().size() == 1) {  // aten::max.other(self, other)
    const DataType dtype = im.output_dtype(n);
    im.bind(n->output(), im.op(reduce_op == "ReduceMax" ? "Max" : "Min", {operand(im, n, 0, dtype), operand(im, n, 1, dtype)}));
    return;
  }
  const int64_t axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  const int64_t keep = im.boolean(n, 2) ? 1 : 0;
  im.bind(n->outputs()[0], im.op(reduce_op, {im.tensor(n, 0)}, {{"axes", std::vector<int64_t>{axis}}, {"keepdims", keep}}));
  im.bind(n->outputs()[1], im.op(arg_op, {im.tensor(n, 0)}, {{"axis", axis}, {"keepdims", keep}}));
}

void map_argmax(Importer& im, const jit::Node* n, const std::string& op_type) {
  // aten::argmax(self, dim, keepdim); dim None: over the flattened tensor
  Value* x = im.tensor(n, 0);
  int64_t axis = 0;
  if (im.is_none(n, 1)) {
    x = im.op("Reshape", {x, im.const_i64({-1})});
  } else {
    axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  }
  im.bind(n->output(), im.op(op_type, {x}, {{"axis", axis}, {"keepdims", int64_t{im.boolean(n, 2) ? 1 : 0}}}));
}

void map_cast(Importer& im, const jit::Node* n) {
  const DataType from = to_data_type(im.input_example(n, 0).scalar_type());
  im.bind(n->output(), im.cast_to(im.tensor(n, 0), from, im.output_dtype(n)));
}

void map_repeat(Importer& im, const jit::Node* n) {
  const std::vector<int64_t> repeats = im.ints(n, 1);
  const at::Tensor& x = im.input_example(n, 0);
  Value* v = im.tensor(n, 0);
  if (static_cast<int64_t>(repeats.size()) > x.dim()) {
    std::vector<int64_t> shape(repeats.size() - static_cast<size_t>(x.dim()), 1);
    shape.insert(shape.end(), x.sizes().begin(), x.sizes().end());
    v = im.op("Reshape", {v, im.const_i64(shape)});
  }
  im.bind(n->output(), im.op("Tile", {v, im.const_i64(repeats)}));
}

void map_trilu(Importer& im, const jit::Node* n, bool upper) {
  const int64_t k = n->inputs().size() > 1 ? im.integer(n, 1) : 0;
  im.bind(n->output(), im.op("Trilu", {im.tensor(n, 0), im.scalar(static_cast<double>(k), DataType::kInt64)},
                             {{"upper", int64_t{upper ? 1 : 0}}}));
}

void map_pad(Importer& im, const jit::Node* n, const std::string& mode, size_t value_input = 2) {
  // constant_pad_nd(self, pad, value) / reflection_pad2d(self, padding) / ...: torch's pad
  // lists (begin, end) pairs from the last dim backwards.
  const std::vector<int64_t> pad = im.ints(n, 1);
  const int64_t rank = im.input_rank(n, 0);
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  for (size_t i = 0; i + 1 < pad.size(); i += 2) {
    const int64_t axis = rank - 1 - static_cast<int64_t>(i / 2);
    if (axis < 0) fail("more pads than dims");
    pads[static_cast<size_t>(axis)] = pad[i];
    pads[static_cast<size_t>(axis + rank)] = pad[i + 1];
  }
  std::vector<Value*> inputs = {im.tensor(n, 0), im.const_i64(pads)};
  if (mode == "constant" && n->inputs().size() > value_input && !im.is_none(n, value_input)) {
    inputs.push_back(im.scalar(im.real(n, value_input), im.output_dtype(n)));
  }
  im.bind(n->output(), im.op("Pad", std::move(inputs), {{"mode", mode}}));
}

void map_aten_pad(Importer& im, const jit::Node* n) {
  // aten::pad(self, pad, mode, value)
  const std::string mode = im.constant(n, 2).toStringRef();
  const std::string onnx_mode = mode == "replicate" ? "edge" : mode;
  if (onnx_mode != "constant" && onnx_mode != "reflect" && onnx_mode != "edge") fail("pad mode '" + mode + "' is not mapped");
  map_pad(im, n, onnx_mode, 3);
}

void map_roll(Importer& im, const jit::Node* n) {
  // aten::roll(self, shifts, dims)
  const std::vector<int64_t> shifts = im.ints(n, 1);
  const std::vector<int64_t> dims = im.ints(n, 2);
  if (dims.size() != shifts.size()) fail("roll without dims is not mapped");
  const at::Tensor& x = im.input_example(n, 0);
  Value* v = im.tensor(n, 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t axis = normalise_axis(dims[i], x.dim());
    const int64_t extent = x.size(axis);
    const int64_t s = extent == 0 ? 0 : ((shifts[i] % extent) + extent) % extent;
    if (s == 0) continue;
    Value* tail = im.op("Slice", {v, im.const_i64({extent - s}), im.const_i64({extent}), im.const_i64({axis})});
    Value* head = im.op("Slice", {v, im.const_i64({0}), im.const_i64({extent - s}), im.const_i64({axis})});
    v = im.op("Concat", {tail, head}, {{"axis", axis}});
  }
  im.bind(n->output(), v);
}

void map_einsum(Importer& im, const jit::Node* n) {
  const std::string equation = im.constant(n, 0).toStringRef();
  im.bind(n->output(), im.op("Einsum", im.tensor_list(n, 1), {{"equation", equation}}));
}

void map_cumsum(Importer& im, const jit::Node* n) {
  const int64_t axis = normalise_axis(im.integer(n, 1), im.input_rank(n, 0));
  const DataType out = im.output_dtype(n);
  im.bind(n->output(), im.op("CumSum", {operand(im, n, 0, out), im.scalar(static_cast<double>(axis), DataType::kInt64)}));
}

}  // namespace

void add_shape_mappings(MappingTable& t) {
  for (const char* k : {"aten::view", "aten::reshape", "aten::flatten", "aten::unflatten", "aten::squeeze", "aten::unsqueeze",
                        "aten::view_as", "aten::reshape_as", "aten::_reshape_alias"}) {
    t[k] = map_reshape;
  }
  for (const char* k : {"aten::expand", "aten::expand_as", "aten::broadcast_to"}) t[k] = map_expand;
  t["aten::permute"] = map_permute;
  for (const char* k : {"aten::transpose", "aten::t", "aten::numpy_T", "aten::swapaxes"}) t[k] = map_transpose;
  t["aten::cat"] = map_cat;
  t["aten::concat"] = map_cat;
  t["aten::stack"] = map_stack;
  for (const char* k : {"aten::chunk", "aten::unsafe_chunk", "aten::split", "aten::split_with_sizes",
                        "aten::unsafe_split", "aten::tensor_split"}) {
    t[k] = [](Importer& im, const jit::Node* n) { map_split(im, n, 2, false); };
  }
  t["aten::unbind"] = [](Importer& im, const jit::Node* n) { map_split(im, n, 1, true); };
  t["aten::slice"] = map_slice;
  t["aten::narrow"] = map_narrow;
  t["aten::select"] = map_select;
  t["aten::index_select"] = map_index_select;
  t["aten::index"] = map_index;
  t["aten::mean"] = [](Importer& im, const jit::Node* n) { reduce(im, n, "ReduceMean", false); };
  t["aten::sum"] = [](Importer& im, const jit::Node* n) { reduce(im, n, "ReduceSum", true); };
  t["aten::amax"] = [](Importer& im, const jit::Node* n) { reduce(im, n, "ReduceMax", false); };
  t["aten::amin"] = [](Importer& im, const jit::Node* n) { reduce(im, n, "ReduceMin", false); };
  t["aten::prod"] = [](Importer& im, const jit::Node* n) { reduce(im, n, "ReduceProd", false); };
  t["aten::max"] = [](Importer& im, const jit::Node* n) { map_max_dim(im, n, "ReduceMax", "ArgMax"); };
  t["aten::min"] = [](Importer& im, const jit::Node* n) { map_max_dim(im, n, "ReduceMin", "ArgMin"); };
  t["aten::argmax"] = [](Importer& im, const jit::Node* n) { map_argmax(im, n, "ArgMax"); };
  t["aten::argmin"] = [](Importer& im, const jit::Node* n) { map_argmax(im, n, "ArgMin"); };
  for (const char* k : {"aten::to", "aten::type_as", "aten::_to_copy", "aten::float", "aten::half", "aten::long",
                        "aten::int", "aten::bool", "aten::double"}) {
    t[k] = map_cast;
  }
  t["aten::repeat"] = map_repeat;
  t["aten::triu"] = [](Importer& im, const jit::Node* n) { map_trilu(im, n, true); };
  t["aten::tril"] = [](Importer& im, const jit::Node* n) { map_trilu(im, n, false); };
  t["aten::constant_pad_nd"] = [](Importer& im, const jit::Node* n) { map_pad(im, n, "constant"); };
  for (const char* k : {"aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d"}) {
    t[k] = [](Importer& im, const jit::Node* n) { map_pad(im, n, "reflect"); };
  }
  for (const char* k : {"aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d"}) {
    t[k] = [](Importer& im, const jit::Node* n) { map_pad(im, n, "edge"); };
  }
  t["aten::pad"] = map_aten_pad;
  t["aten::roll"] = map_roll;
  t["aten::einsum"] = map_einsum;
  t["aten::cumsum"] = map_cumsum;
}

}  // namespace ge::torchscript
