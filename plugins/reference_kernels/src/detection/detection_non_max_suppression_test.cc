// NonMaxSuppression kernel tests on the ONNX operator example boxes (hand-checked: box 1
// overlaps box 0 with IOU 0.9/1.1 = 0.82, box 4 overlaps box 3 likewise; the rest are
// disjoint).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor boxes() {
  return f32({1, 6, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
}
Tensor scores() { return f32({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }

TEST(NonMaxSuppressionKernel, SuppressesOverlapsByDescendingScore) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes())
      .input(scores())
      .input(i64({1}, {3}))
      .input(f32({1}, {0.5f}))
      .input(f32({1}, {0.0f}))
      .output(F::kInt64, {3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {3, 3}, {0, 0, 3, 0, 0, 0, 0, 0, 5});
}

TEST(NonMaxSuppressionKernel, ScoreThresholdAndCenterPointBoxes) {
  // The same boxes as [x_center, y_center, width, height]; score_threshold 0.4 drops box 5.
  KernelTest test("NonMaxSuppression", 11);
  test.input(f32({1, 6, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 0.5f, 0.4f, 1, 1, 0.5f, 10.5f, 1, 1, 0.5f, 10.6f, 1, 1,
                             0.5f, 100.5f, 1, 1}))
      .input(scores())
      .input(i64({1}, {3}))
      .input(f32({1}, {0.5f}))
      .input(f32({1}, {0.4f}))
      .attribute("center_point_box", int64_t{1})
      .output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 3}, {0, 0, 3, 0, 0, 0});
}

TEST(NonMaxSuppressionKernel, WithoutMaxOutputSelectsNothing) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes()).input(scores()).output(F::kInt64, {0, 3});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(out[0].element_count(), 0);
}

TEST(NonMaxSuppressionKernel, SelectionCountDisagreeingWithTheOutputFailsAtLaunch) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes()).input(scores()).input(i64({1}, {3})).input(f32({1}, {0.5f})).output(F::kInt64, {2, 3});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 303);
}

// The definition written out plainly (sort, then compare with every kept box), for the
// kernel's blocked, vectorised comparisons to be held to.
std::vector<int64_t> plain_selection(const std::vector<float>& boxes, const std::vector<float>& scores, int64_t batches,
                                     int64_t classes, int64_t count, bool center, int64_t max_kept, float iou,
                                     float threshold) {
  auto corners = [&](const float* b) {
    if (center) return std::vector<float>{b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    return std::vector<float>{std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
  };
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data() + (b * classes + c) * count;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i) {
        if (s[i] > threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [s](int64_t l, int64_t r) { return s[l] > s[r]; });
      std::vector<std::vector<float>> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_kept) break;
        const std::vector<float> a = corners(boxes.data() + (b * count + i) * 4);
        bool keep = true;
        for (const std::vector<float>& k : kept) {
          const float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_k = (k[2] - k[0]) * (k[3] - k[1]);
          if (area_a <= 0 || area_k <= 0) continue;
          const float h = std::max(0.0f, std::min(a[2], k[2]) - std::max(a[0], k[0]));
          const float w = std::max(0.0f, std::min(a[3], k[3]) - std::max(a[1], k[1]));
          const float inter = h * w, uni = area_a + area_k - inter;
          if (inter > 0 && uni > 0 && inter / uni > iou) keep = false;
        }
        if (!keep) continue;
        kept.push_back(a);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  }
  return rows;
}

// Hundreds of random boxes per class, so that hundreds are kept (many blocks of kept boxes,
// a partial last one), some of zero area and some given in reverse corner order; score ties.
TEST(NonMaxSuppressionKernel, ManyBoxesMatchThePlainDefinition) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> where(0.0f, 100.0f), size(0.0f, 12.0f);
  std::uniform_int_distribution<int> score(0, 40);
  constexpr int64_t kBatches = 2, kClasses = 3, kBoxes = 700;
  for (const bool center : {false, true}) {
    for (const float iou : {0.0f, 0.3f, 0.7f}) {
      std::vector<float> boxes, scores;
      for (int64_t i = 0; i < kBatches * kBoxes; ++i) {
        const float y = where(rng), x = where(rng), h = i % 17 == 0 ? 0.0f : size(rng), w = size(rng);
        if (center) boxes.insert(boxes.end(), {x, y, w, h});
        else if (i % 5 == 0) boxes.insert(boxes.end(), {y + h, x + w, y, x});
        else boxes.insert(boxes.end(), {y, x, y + h, x + w});
      }
      for (int64_t i = 0; i < kBatches * kClasses * kBoxes; ++i) scores.push_back(static_cast<float>(score(rng)) / 40.0f);
      const std::vector<int64_t> want = plain_selection(boxes, scores, kBatches, kClasses, kBoxes, center, 500, iou, 0.1f);
      ASSERT_GT(want.size(), 3u * 100u) << "enough boxes kept to fill several blocks";
      const auto rows = static_cast<int64_t>(want.size() / 3);
      KernelTest test("NonMaxSuppression", 11);
      test.input(f32({kBatches, kBoxes, 4}, boxes))
          .input(f32({kBatches, kClasses, kBoxes}, scores))
          .input(i64({1}, {500}))
          .input(f32({1}, {iou}))
          .input(f32({1}, {0.1f}))
          .attribute("center_point_box", int64_t{center ? 1 : 0})
          .output(F::kInt64, {rows, 3});
      GE_RUN_KERNEL(out, test);
      expect_tensor<int64_t>(out[0], {rows, 3}, want);
    }
  }
}

// torchvision's batched_nms: every class's boxes moved apart by an offset, suppressed as
// one class, thousands kept. The candidate is then held to the kept boxes near its left
// edge only; the selection must still be the plain one, with boxes of NaN corners (which
// overlap nothing) among them, and with one box of an infinite corner (every candidate
// then compares with the whole kept list).
TEST(NonMaxSuppressionKernel, OffsetClassesAndNonFiniteBoxesMatchThePlainDefinition) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> where(0.0f, 50.0f), size(0.5f, 20.0f);
  std::uniform_int_distribution<int> score(0, 1000);
  constexpr int64_t kGroups = 30, kPerGroup = 60, kBoxes = kGroups * kPerGroup;
  for (const bool infinite : {false, true}) {
    std::vector<float> boxes, scores;
    for (int64_t i = 0; i < kBoxes; ++i) {
      const float offset = static_cast<float>(i % kGroups) * 71.0f;
      const float y = where(rng) + offset, x = where(rng) + offset, h = size(rng), w = size(rng);
      if (i % 97 == 5) boxes.insert(boxes.end(), {y, std::nanf(""), y + h, x + w});
      else if (infinite && i == 400) boxes.insert(boxes.end(), {y, -std::numeric_limits<float>::infinity(), y + h, x + w});
      else boxes.insert(boxes.end(), {y, x, y + h, x + w});
      scores.push_back(static_cast<float>(score(rng)) / 1000.0f);
    }
    for (const float iou : {0.2f, 0.5f}) {
      const std::vector<int64_t> want = plain_selection(boxes, scores, 1, 1, kBoxes, false, kBoxes, iou, -1.0f);  // no score threshold
      ASSERT_GT(want.size(), 3u * 300u) << "hundreds kept";
      const auto rows = static_cast<int64_t>(want.size() / 3);
      KernelTest test("NonMaxSuppression", 11);
      test.input(f32({1, kBoxes, 4}, boxes))
          .input(f32({1, 1, kBoxes}, scores))
          .input(i64({1}, {kBoxes}))
          .input(f32({1}, {iou}))
          .output(F::kInt64, {rows, 3});
      GE_RUN_KERNEL(out, test);
      expect_tensor<int64_t>(out[0], {rows, 3}, want);
    }
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
