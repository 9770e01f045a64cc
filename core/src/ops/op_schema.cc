// What the core knows about one op version (ge/op_schema.h): the in-place pairs it allows.
#include "ge/op_schema.h"

namespace ge {

bool OpSchemaInfo::may_run_in_place(size_t input_index, size_t output_index) const {
  for (const InPlacePair& pair : in_place) {
    if (pair.output >= 0 && static_cast<size_t>(pair.output) == output_index &&
        (pair.input == InPlacePair::kEveryInput ||
         (pair.input >= 0 && static_cast<size_t>(pair.input) == input_index))) {
      return true;
    }
  }
  return false;
}

}  // namespace ge
