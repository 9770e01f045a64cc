#include "torchscript_parser.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <system_error>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/shape_arithmetic.h"
#include "importer.h"

namespace ge::torchscript {
namespace fs = std::filesystem;
namespace {

/// The first line of a libtorch error (the rest is a C++ backtrace).
std::string first_line(const std::string& what) {
  const size_t newline = what.find('\n');
  return newline == std::string::npos ? what : what.substr(0, newline);
}

/// An example input: seeded normal values for floats, zeros for integers and bools.
Result<at::Tensor> example_input(const InputShape& shape) {
  c10::ScalarType type;
  try {
    type = to_scalar_type(shape.dtype.value_or(DataType::kFloat32));
  } catch (const MappingError& e) {
    return unsupported("input '" + shape.name + "': " + e.message);
  }
  if (c10::isFloatingType(type)) {
    return at::randn(shape.dims, at::TensorOptions().dtype(at::kFloat)).to(type);
  }
  return at::zeros(shape.dims, at::TensorOptions().dtype(type));
}

/// Runs `graph` on `stack` (its inputs; replaced by its outputs); returns libtorch's error,
/// empty when none. The run uses every core (torch's default may be one: its eager
/// convolutions at one thread cost seconds on a ResNet-50); the caller's setting is
/// restored after.
std::string run_graph(const std::shared_ptr<jit::Graph>& graph, const std::string& name, std::vector<c10::IValue>& stack) {
  std::string error;
  const int threads = at::get_num_threads();
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  try {
    at::NoGradGuard no_grad;
    jit::Code code(graph, name);
    jit::InterpreterState state(code);
    state.run(stack);
  } catch (const std::exception& e) {
    // The interpreter's message opens with a fixed line and a TorchScript traceback; the
    // last line is the op's own error.
    const std::string what = e.what();
    error = first_line(what);
    if (error.starts_with("The following operation failed")) {
      std::istringstream lines(what);
      for (std::string line; std::getline(lines, line);) {
        if (line.find_first_not_of(" \t") != std::string::npos) error = line;
      }
    }
    if (error.empty()) error = "libtorch raised an error";
  }
  at::set_num_threads(threads);
  return error;
}

/// Records what the values of `block` (a branch of an If) hold when it runs on its own,
/// on the recorded values it reads from outside, into `recorded`; then the branches of
/// the Ifs inside it. A branch that cannot run is noted in `recorded.failed_blocks` (the
/// importer fails only if it needs that branch).
void record_block(jit::Block* block, Recording& recorded) {
  // The values the block reads from outside, in order of first use.
  std::vector<jit::Value*> free;
  std::unordered_set<const jit::Value*> defined, listed;
  std::function<void(jit::Block*)> visit = [&](jit::Block* b) {
    for (const jit::Value* p : b->inputs()) defined.insert(p);
    auto use = [&](jit::Value* v) {
      if (!defined.count(v) && listed.insert(v).second) free.push_back(v);
    };
    for (jit::Node* node : b->nodes()) {
      for (jit::Value* in : node->inputs()) use(in);
      for (jit::Block* inner : node->blocks()) visit(inner);
      for (const jit::Value* o : node->outputs()) defined.insert(o);
    }
    for (jit::Value* o : b->outputs()) use(o);
  };
  visit(block);
  auto graph = std::make_shared<jit::Graph>();
  std::unordered_map<const jit::Value*, jit::Value*> map;
  std::vector<c10::IValue> stack;
  for (jit::Value* v : free) {
    auto it = recorded.values.find(v);
    if (it == recorded.values.end()) {
      recorded.failed_blocks[block] = "it reads '" + v->debugName() + "', which has no recorded value";
      return;
    }
    map[v] = graph->addInput()->setType(v->type());
    stack.push_back(it->second);
  }
  std::vector<const jit::Value*> results;
  for (jit::Node* node : block->nodes()) {
    jit::Node* clone = graph->createClone(node, [&](jit::Value* v) { return map.at(v); });
    graph->insertNode(clone);
    for (size_t i = 0; i < node->outputs().size(); ++i) {
      map[node->outputs()[i]] = clone->outputs()[i];
      graph->registerOutput(clone->outputs()[i]);
      results.push_back(node->outputs()[i]);
    }
  }
  if (!results.empty()) {
    if (std::string error = run_graph(graph, "ge_branch", stack); !error.empty()) {
      recorded.failed_blocks[block] = error;
      return;
    }
    if (stack.size() != results.size()) {
      recorded.failed_blocks[block] = "the branch returned " + std::to_string(stack.size()) + " values, expected " +
                                      std::to_string(results.size());
      return;
    }
    for (size_t i = 0; i < results.size(); ++i) recorded.values[results[i]] = stack[i];
  }
  for (jit::Node* node : block->nodes()) {
    if (node->kind() != c10::prim::If) continue;
    for (jit::Block* inner : node->blocks()) record_block(inner, recorded);
  }
}

/// Runs `graph` (the frozen forward) on `inputs` once and records what every top-level
/// value held: the graph returns them all for the run, then its outputs are restored.
Result<std::unordered_map<const jit::Value*, c10::IValue>> record(jit::Graph& graph, const c10::IValue& self,
                                                                    const std::vector<at::Tensor>& inputs) {
  std::vector<jit::Value*> values(graph.inputs().begin(), graph.inputs().end());
  for (jit::Node* node : graph.nodes()) {
    for (jit::Value* o : node->outputs()) values.push_back(o);
  }
  const size_t original = graph.outputs().size();
  for (jit::Value* v : values) graph.registerOutput(v);
  std::vector<c10::IValue> stack;
  stack.emplace_back(self);
  for (const at::Tensor& t : inputs) stack.emplace_back(t);
  const std::string error = run_graph(graph.copy(), "ge_record", stack);
  while (graph.outputs().size() > original) graph.eraseOutput(graph.outputs().size() - 1);
  if (!error.empty()) return invalid_argument("running the module on example inputs failed: " + error);
  // The run returns the original outputs, then one per recorded value.
  if (stack.size() != original + values.size()) {
    return internal_error("the example run returned " + std::to_string(stack.size()) + " values, expected " +
                          std::to_string(original + values.size()));
  }
  std::unordered_map<const jit::Value*, c10::IValue> recorded;
  for (size_t i = 0; i < values.size(); ++i) recorded[values[i]] = stack[original + i];
  return recorded;
}

/// Control flow whose condition or trip count does not depend on the input's data (a
/// shape, a module attribute) is specialised as the example run took it: the condition
/// becomes a constant, TorchScript's passes fold the If and unroll the loop, and the
/// graph is recorded again. Returns the final recording, with both branches of each If
/// whose condition depends on the inputs' data (record_block).
Result<Recording> specialise_control_flow(std::shared_ptr<jit::Graph>& graph, const c10::IValue& self,
                                          const std::vector<at::Tensor>& examples) {
  constexpr int kMaxRounds = 16;
  for (int round = 0;; ++round) {
    GE_ASSIGN_OR_RETURN(auto recorded, record(*graph, self, examples));
    const std::unordered_set<const jit::Value*> dynamic = data_dependent_values(*graph);
    bool changed = false;
    for (jit::Node* node : graph->nodes()) {
      const bool is_if = node->kind() == c10::prim::If;
      const bool is_loop = node->kind() == c10::prim::Loop;
      if (!is_if && !is_loop) continue;
      // If: the condition; Loop: the trip count and the initial condition.
      const size_t controls = is_if ? 1 : 2;
      bool fixed = true;
      bool constant = true;
      for (size_t i = 0; i < controls; ++i) {
        jit::Value* control = node->inputs()[i];
        const bool is_constant = control->node()->kind() == c10::prim::Constant;
        fixed = fixed && (is_constant || (!dynamic.count(control) && recorded.count(control)));
        constant = constant && is_constant;
      }
      if (!fixed || constant) continue;
      jit::WithInsertPoint guard(node);
      for (size_t i = 0; i < controls; ++i) {
        if (node->inputs()[i]->node()->kind() == c10::prim::Constant) continue;
        node->replaceInput(i, graph->insertConstant(recorded.at(node->inputs()[i])));
      }
      changed = true;
    }
    if (!changed) {
      Recording recording{std::move(recorded), {}};
      for (jit::Node* node : graph->nodes()) {
        if (node->kind() != c10::prim::If) continue;
        for (jit::Block* block : node->blocks()) record_block(block, recording);
      }
      return recording;
    }
    if (round == kMaxRounds) return unsupported("control flow still depends on values after " +
                                                std::to_string(kMaxRounds) + " rounds of specialisation");
    jit::ConstantPropagation(graph);
    jit::UnrollConstantLoops(graph);
    jit::ConstantPropagation(graph);
    jit::EliminateDeadCode(graph);
  }
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

Result<std::unique_ptr<Graph>> import_module(jit::Module module, const std::string& stored_shapes,
                                             const ParseOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  module.eval();
  jit::Module frozen = jit::freeze(module);
  std::shared_ptr<jit::Graph> graph = frozen.get_method("forward").graph()->copy();
  jit::Inline(*graph);
  jit::RemoveListMutation(graph);
  jit::RemoveTensorMutation(graph);
  jit::LowerSimpleTuples(graph);
  jit::ConstantPropagation(graph);
  jit::UnrollConstantLoops(graph);
  jit::ConstantPropagation(graph);
  jit::EliminateDeadCode(graph);

  std::vector<InputShape> shapes = options.input_shapes;
  if (!stored_shapes.empty()) {
    Result<std::vector<InputShape>> parsed = parse_input_shapes(stored_shapes);
    if (!parsed.is_ok()) return parsed.status().with_context(std::string("the archive's ") + kInputShapesFile);
    const std::vector<InputShape> stored = std::move(parsed).value();
    for (const InputShape& s : stored) {
      bool given = false;
      for (const InputShape& o : shapes) given = given || o.name == s.name;
      if (!given) shapes.push_back(s);
    }
  }
  // forward's arguments: a trailing ".N" (TorchScript's renaming) dropped, a repeated
  // name suffixed with its position (ge.torch.input_names names them alike).
  std::vector<std::string> names;
  std::string known;
  for (size_t i = 1; i < graph->inputs().size(); ++i) {
    const jit::Value* in = graph->inputs()[i];
    std::string name = clean_name(in->debugName());
    if (std::find(names.begin(), names.end(), name) != names.end()) name += "_" + std::to_string(i - 1);
    if (in->type()->kind() != c10::TypeKind::TensorType) {
      return unsupported("forward's argument '" + name + "' is a " + in->type()->str() +
                         ": GE maps tensor arguments only");
    }
    known += (known.empty() ? "'" : ", '") + name + "'";
    names.push_back(name);
  }
  for (const InputShape& s : shapes) {
    if (std::find(names.begin(), names.end(), s.name) == names.end()) {
      return invalid_argument("the module has no input '" + s.name + "' (its inputs: " + (known.empty() ? "none" : known) + ")");
    }
  }
  std::vector<at::Tensor> examples;
  for (const std::string& name : names) {
    const InputShape* shape = nullptr;
    for (const InputShape& s : shapes) {
      if (s.name == name) shape = &s;
    }
    if (shape == nullptr) {
      return invalid_argument("a TorchScript archive stores no input shapes: give input '" + name +
                              "' one (ge-run --input-shape " + name +
                              ":D0,D1,...; ge.torch.save(module, example_inputs, path) stores them in the archive)");
    }
    std::optional<int64_t> elements = 1;
    for (int64_t d : shape->dims) {
      if (d < 0) return unsupported("input '" + name + "': a TorchScript model is imported for static shapes; give every dim");
      if (elements) elements = checked_multiply(*elements, d);
    }
    // The example run allocates the input: one larger than this machine's memory is refused.
    const DataType dtype = shape->dtype.value_or(DataType::kFloat32);
    const std::optional<int64_t> bytes =
        elements ? checked_multiply(*elements, static_cast<int64_t>(std::max<size_t>(element_size(dtype), 1)))
                 : std::nullopt;
    if (!bytes || static_cast<uint64_t>(*bytes) > physical_memory_bytes()) {
      return invalid_argument("input '" + name + "': a " + std::string(data_type_name(dtype)) +
                              " tensor of that shape is larger than this machine's memory");
    }
    GE_ASSIGN_OR_RETURN(at::Tensor example, example_input(*shape));
    examples.push_back(std::move(example));
  }
  const double prepare_ms = ms_since(start);
  GE_ASSIGN_OR_RETURN(auto recorded, specialise_control_flow(graph, frozen._ivalue(), examples));
  const double record_ms = ms_since(start) - prepare_ms;
  auto out = std::make_unique<Graph>("torchscript");
  out->set_opset_import("", 17);
  Importer importer(*out, *graph, std::move(recorded));
  GE_RETURN_IF_ERROR(importer.run(names));
  out->remove_unused_values();
  GE_LOG_INFO("torchscript: froze and inlined forward in {:.1f} ms, ran it on example inputs in {:.1f} ms, mapped "
              "{} nodes in {:.1f} ms", prepare_ms, record_ms, out->node_count(), ms_since(start) - prepare_ms - record_ms);
  return out;
}

template <typename Load>
Result<std::unique_ptr<Graph>> load_and_import(const std::string& what, Load&& load, const ParseOptions& options) {
  try {
    jit::ExtraFilesMap extra{{kInputShapesFile, ""}};
    const auto start = std::chrono::steady_clock::now();
    jit::Module module = load(extra);
    GE_LOG_INFO("torchscript: loaded {} in {:.1f} ms", what, ms_since(start));
    Result<std::unique_ptr<Graph>> graph = import_module(std::move(module), extra[kInputShapesFile], options);
    if (!graph.is_ok()) return graph.status().with_context(what);
    return graph;
  } catch (const c10::Error& e) {
    const std::string message = first_line(e.what_without_backtrace());
    if (message.find("version") != std::string::npos) {
      return parse_error(what + ": an unsupported TorchScript archive version (this GE reads what torch " +
                         std::string(TORCH_VERSION) + " writes): " + message);
    }
    return parse_error(what + ": not a TorchScript archive libtorch can load: " + message);
  } catch (const std::exception& e) {
    return parse_error(what + ": not a TorchScript archive libtorch can load: " + first_line(e.what()));
  } catch (...) {
    return internal_error(what + ": libtorch threw a non-standard exception");
  }
}

}  // namespace

Result<std::unique_ptr<Graph>> TorchScriptParser::parse_file(const fs::path& path) const {
  return parse_file_with(path, {});
}

Result<std::unique_ptr<Graph>> TorchScriptParser::parse_bytes(const std::string& bytes, const fs::path& base_dir) const {
  return parse_bytes_with(bytes, base_dir, {});
}

Result<std::unique_ptr<Graph>> TorchScriptParser::parse_file_with(const fs::path& path, const ParseOptions& options) const {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return not_found("'" + path.string() + "': no such TorchScript file");
  return load_and_import(
      path.string(), [&](jit::ExtraFilesMap& extra) { return jit::load(path.string(), at::kCPU, extra); }, options);
}

Result<std::unique_ptr<Graph>> TorchScriptParser::parse_bytes_with(const std::string& bytes, const fs::path&,
                                                                   const ParseOptions& options) const {
  return load_and_import(
      "TorchScript archive in memory",
      [&](jit::ExtraFilesMap& extra) {
        std::istringstream in(bytes);
        return jit::load(in, at::kCPU, extra);
      },
      options);
}

}  // namespace ge::torchscript
