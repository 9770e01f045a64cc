// Tests of the span conversions of float16 (ge/minifloat.h, float16_span.h): each
// instruction set this CPU has gives exactly the one-element conversions, over every
// float16 bit pattern and the float32 values around every rounding boundary.
#include "float16_span.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "ge/minifloat.h"

namespace ge {
namespace {

using float16_span::Isa;

const char* name(Isa isa) {
  return isa == Isa::kPortable ? "portable" : isa == Isa::kF16c ? "F16C" : "AVX-512";
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kPortable, Isa::kF16c, Isa::kAvx512}) {
    if (float16_span::supported(isa)) isas.push_back(isa);
  }
  return isas;
}

/// The float32 values a store must round right: every float16 value, the midpoints
/// between neighbours and the floats either side of them, both signs; the overflow
/// threshold, infinities, NaNs (quiet and signalling, payloads), float denormals.
std::vector<float> store_boundaries() {
  std::vector<float> values;
  for (uint32_t low = 0; low < 0x7c00; ++low) {
    const float a = float16_to_float(static_cast<uint16_t>(low));
    const float b = low + 1 == 0x7c00 ? 65536.0f : float16_to_float(static_cast<uint16_t>(low + 1));
    const float middle = (a + b) / 2;  // exact
    for (float v : {a, std::nextafter(a, 0.0f), middle, std::nextafter(middle, 0.0f), std::nextafter(middle, 1e30f)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (uint32_t bits : {0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fbfffffu, 0x7fffe000u, 0x7f802000u, 0x00000001u,
                        0x007fffffu, 0x33000000u, 0x33000001u, 0x387fffffu, 0x38800000u, 0x477fefffu, 0x477ff000u,
                        0x7f7fffffu}) {
    values.push_back(std::bit_cast<float>(bits));
    values.push_back(std::bit_cast<float>(bits | 0x80000000u));
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) values.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  values.push_back(1.0f);  // an odd count: the vector loops leave a tail
  return values;
}

TEST(Float16Span, PortableIsAlwaysSupported) {
  EXPECT_TRUE(float16_span::supported(Isa::kPortable));
  EXPECT_TRUE(float16_span::supported(float16_span::best()));
}

TEST(Float16Span, LoadsEveryBitPatternExactly) {
  std::vector<uint16_t> patterns(0x10000 + 3);
  for (size_t i = 0; i < patterns.size(); ++i) patterns[i] = static_cast<uint16_t>(i);
  for (Isa isa : supported_isas()) {
    std::vector<float> out(patterns.size());
    float16_span::to_float(isa, patterns.data(), out.data(), patterns.size());
    for (size_t i = 0; i < patterns.size(); ++i) {
      // Signalling NaNs stay signalling: the bits, not only the value, match.
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(float16_to_float(patterns[i])))
          << name(isa) << " pattern " << std::hex << patterns[i];
    }
  }
}

TEST(Float16Span, StoresRoundToNearestEvenLikeTheScalarConversion) {
  const std::vector<float> values = store_boundaries();
  for (Isa isa : supported_isas()) {
    std::vector<uint16_t> out(values.size());
    float16_span::from_float(isa, values.data(), out.data(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(out[i], float16_from_float(values[i]))
          << name(isa) << " value " << std::hex << std::bit_cast<uint32_t>(values[i]);
    }
  }
}

TEST(Float16Span, RoundTripsEveryBitPattern) {
  std::vector<uint16_t> patterns(0x10000), back(0x10000);
  for (size_t i = 0; i < patterns.size(); ++i) patterns[i] = static_cast<uint16_t>(i);
  std::vector<float> widened(patterns.size());
  float16_to_float(std::span<const uint16_t>(patterns), std::span<float>(widened));
  float16_from_float(std::span<const float>(widened), std::span<uint16_t>(back));
  for (size_t i = 0; i < patterns.size(); ++i) {
    const bool nan = (patterns[i] & 0x7c00) == 0x7c00 && (patterns[i] & 0x3ff) != 0;
    EXPECT_EQ(back[i], nan ? patterns[i] | 0x0200 : patterns[i]) << std::hex << patterns[i];  // NaNs come back quiet
  }
}

}  // namespace
}  // namespace ge
