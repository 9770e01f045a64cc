#pragma once
/// Finds the ONNX backend test cases of a category: each is a folder holding model.onnx and
/// test_data_set_*/ with input_K.pb / output_K.pb.

#include <filesystem>
#include <string>
#include <vector>

#include "ge/status.h"

namespace ge::conformance {

struct TestCase {
  std::string category;  ///< "node", "simple", ...
  std::string name;      ///< folder name, "test_abs"
  std::filesystem::path dir;
  /// Row of the per-op table: the op type for `node` cases, the case name otherwise.
  std::string table_key;

  /// "node/test_abs": how the expectations file and --filter name the case.
  std::string id() const { return category + "/" + name; }
};

/// The cases under `data_dir/category`, sorted by name, with table keys set. A folder
/// without model.onnx is skipped. kNotFound when the category folder does not exist.
Result<std::vector<TestCase>> discover_cases(const std::filesystem::path& data_dir, const std::string& category);

/// The op type of a one-op model (Constant nodes feeding it aside); empty when the model
/// cannot be read or holds several ops.
std::string single_op_type(const std::filesystem::path& model_file);

/// Table keys of `node` cases: the single op type; an "X_expanded" case (the op's function
/// body) gets the key of case X plus " (expanded)"; anything else keeps its case name.
void assign_node_table_keys(std::vector<TestCase>& cases);

}  // namespace ge::conformance
