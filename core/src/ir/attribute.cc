// Typed node attributes (ge/attribute.h): the names of the attribute types.
#include "ge/attribute.h"

namespace ge {

const char* attribute_type_name(AttributeType type) {
  switch (type) {
    case AttributeType::kInt: return "int";
    case AttributeType::kFloat: return "float";
    case AttributeType::kString: return "string";
    case AttributeType::kTensor: return "tensor";
    case AttributeType::kGraph: return "graph";
    case AttributeType::kInts: return "ints";
    case AttributeType::kFloats: return "floats";
    case AttributeType::kStrings: return "strings";
    case AttributeType::kTensors: return "tensors";
    case AttributeType::kGraphs: return "graphs";
    case AttributeType::kType: return "type";
    case AttributeType::kTypes: return "types";
  }
  return "unknown";
}

}  // namespace ge
