#pragma once
/// The ai.onnx op versions of opsets 18 to 23 (ONNX 1.13 to 1.18), which Debian's libonnx
/// 1.12 does not know (its registry stops at opset 17). Their schemas are built here with
/// libonnx's schema API and served next to its registry: libonnx's own schema answers
/// for every op whose newest version is 17 or older, this table for the rest.
///
/// Three kinds of entries:
/// - a version that only widened the types (float8, int4, bfloat16, ...): a copy of the
///   previous version's schema with the new since_version, plus the attributes the new
///   version added, which only the new types read (Cast's `saturate`);
/// - a version that changed semantics or a new op: a schema written here, with its type
///   constraints and shape inference (libonnx's inference function of an older version
///   where the shape rule did not change);
/// - a version GE does not run: no schema, a reason given at inference.

#include <cstdint>
#include <string>
#include <vector>

#include "ge/onnx_common/opsets.h"

namespace onnx {
class OpSchema;
}

namespace ge::onnx_ops {

struct NewerVersion {
  std::string op_type;
  int since_version = 0;
  /// The version whose semantics this one keeps for every type GE runs: since_version
  /// for a new op or a semantic change, the previous version for a types-only bump.
  int semantics_since = 0;
  /// Null when GE does not run this version; `unsupported` says why.
  const onnx::OpSchema* schema = nullptr;
  std::string unsupported;
};

/// The newest entry of `op_type` (ai.onnx) with since_version in [18, opset], or null
/// when the op has no version newer than 17 up to `opset`. Thread-safe; entries live for
/// the process.
const NewerVersion* find_newer_version(const std::string& op_type, int64_t opset);

/// The version whose semantics ai.onnx op `op_type` has at `opset` (this table's
/// semantics_since, else libonnx's since_version), or 0 when no schema is known. Two
/// opsets with the same answer run the op the same way.
int semantics_version(const std::string& op_type, int64_t opset);

/// Every entry, ordered by op and version (for tests and documentation).
const std::vector<NewerVersion>& newer_versions();

}  // namespace ge::onnx_ops
