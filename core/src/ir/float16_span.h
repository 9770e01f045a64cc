#pragma once
// The implementations behind the span conversions of ge/minifloat.h, one per instruction
// set, so that a test checks each one the CPU can run. Internal to the core.

#include <cstddef>
#include <cstdint>

namespace ge::float16_span {

/// An instruction set a span conversion may use.
enum class Isa { kPortable, kF16c, kAvx512 };

/// Whether this CPU runs `isa`'s conversions.
bool supported(Isa isa);

/// The best supported instruction set.
Isa best();

/// float16_to_float over n elements with `isa` (which must be supported).
void to_float(Isa isa, const uint16_t* in, float* out, size_t n);

/// float16_from_float over n elements with `isa` (which must be supported).
void from_float(Isa isa, const float* in, uint16_t* out, size_t n);

}  // namespace ge::float16_span
