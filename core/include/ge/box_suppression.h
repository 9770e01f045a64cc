#pragma once
/// Greedy non-maximum suppression as ONNX NonMaxSuppression defines it, for one batch and
/// class: the boxes whose score is above the threshold (all when there is none) are visited
/// by descending score (ties by lower box index) and kept unless their intersection over
/// union with a box already kept exceeds the IOU threshold, up to a number of boxes. Boxes
/// are [y1, x1, y2, x2] corners in either order, or [x_center, y_center, width, height]; a
/// box of zero area overlaps nothing. The op library counts the selection to infer the
/// output's rows and the cpu kernel writes it: both run this, so they always agree.
///
/// A candidate is tested against the kept boxes that can intersect it: those whose left
/// edge lies within the widest box's width before its own left edge and before its right
/// edge, a range of the boxes sorted by left edge once per batch, when that range is
/// shorter than the kept list. torchvision's detectors suppress all classes at once with
/// each class's boxes moved apart (batched_nms): SSDlite's 27000 candidates kept 11458,
/// and each was tested against thousands of kept boxes of other classes before.
///
/// Allocation-free (a kernel launch may not allocate): the caller hands in the scratch,
/// BoxSuppression::scratch_bytes(boxes) of it, 64-byte aligned or not.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace ge {

class BoxSuppression {
 public:
  /// Scratch for up to `boxes` boxes per batch: candidate indices, each box's place in
  /// left-edge order, the kept indices, the sorted left edges; the corners and areas of
  /// every box, of the kept ones in selection order and in left-edge order, column by
  /// column (the last two padded for whole blocks).
  static size_t scratch_bytes(int64_t boxes) {
    const auto n = static_cast<size_t>(std::max<int64_t>(boxes, 0));
    return 3 * n * sizeof(int64_t) + (n + 5 * n + 5 * padded(n) + 5 * (padded(n) + kBlock)) * sizeof(float);
  }

  BoxSuppression(void* scratch, int64_t boxes) : capacity_(std::max<int64_t>(boxes, 0)) {
    auto* ints = static_cast<int64_t*>(scratch);
    candidates_ = ints, ints += capacity_;
    position_ = ints, ints += capacity_;
    kept_index_ = ints, ints += capacity_;
    auto* floats = reinterpret_cast<float*>(ints);
    sorted_left_ = floats, floats += capacity_;
    for (float*& column : all_) column = floats, floats += capacity_;
    const auto kept_capacity = static_cast<int64_t>(padded(static_cast<size_t>(capacity_)));
    for (float*& column : kept_) column = floats, floats += kept_capacity;
    for (float*& column : placed_) column = floats, floats += kept_capacity + static_cast<int64_t>(kBlock);
  }

  /// Reads one batch's boxes ([count, 4], count <= the capacity) once for every class.
  void set_boxes(const float* boxes, int64_t count, bool center_point_box) {
    count_ = std::min(count, capacity_);
    widest_ = 0;
    for (int64_t i = 0; i < count_; ++i) {
      const float* box = boxes + i * 4;
      float y1, x1, y2, x2;
      if (center_point_box) {
        const float half_w = box[2] / 2.0f, half_h = box[3] / 2.0f;
        y1 = box[1] - half_h, x1 = box[0] - half_w, y2 = box[1] + half_h, x2 = box[0] + half_w;
      } else {
        y1 = std::min(box[0], box[2]), x1 = std::min(box[1], box[3]);
        y2 = std::max(box[0], box[2]), x2 = std::max(box[1], box[3]);
      }
      all_[0][i] = y1, all_[1][i] = x1, all_[2][i] = y2, all_[3][i] = x2, all_[4][i] = (y2 - y1) * (x2 - x1);
      // Only a box of positive area overlaps anything (a NaN corner leaves none; an
      // infinite one makes the width infinite, kEverywhere: every candidate scans the list).
      if (all_[4][i] > 0.0f) widest_ = std::max(widest_, static_cast<double>(x2) - static_cast<double>(x1));
    }
    // The left-edge order (NaN last): candidates_ is free until select().
    for (int64_t i = 0; i < count_; ++i) candidates_[i] = i;
    auto left = [this](int64_t i) { return std::isnan(all_[1][i]) ? std::numeric_limits<float>::infinity() : all_[1][i]; };
    std::sort(candidates_, candidates_ + count_,
              [&left](int64_t l, int64_t r) { return left(l) != left(r) ? left(l) < left(r) : l < r; });
    for (int64_t p = 0; p < count_; ++p) {
      position_[candidates_[p]] = p;
      sorted_left_[p] = left(candidates_[p]);
    }
    const int64_t placed = static_cast<int64_t>(padded(static_cast<size_t>(count_))) + static_cast<int64_t>(kBlock);
    for (float* column : placed_) std::fill(column, column + placed, 0.0f);
    kept_before_ = 0;
  }

  /// Selects among the set boxes by `scores` (one per box); calls `selected(index)` for
  /// each box kept, in selection order, and returns how many were kept.
  template <typename Selected>
  int64_t select(const float* scores, int64_t max_kept, float iou_threshold, const float* score_threshold,
                 Selected&& selected) {
    for (int64_t k = 0; k < kept_before_; ++k) placed_[4][position_[kept_index_[k]]] = 0.0f;  // the last class's
    int64_t count = 0;
    for (int64_t i = 0; i < count_; ++i) {
      if (score_threshold == nullptr || scores[i] > *score_threshold) candidates_[count++] = i;
    }
    std::sort(candidates_, candidates_ + count,
              [scores](int64_t l, int64_t r) { return scores[l] != scores[r] ? scores[l] > scores[r] : l < r; });
    int64_t kept = 0;
    for (int64_t k = 0; k < count && kept < max_kept; ++k) {
      const int64_t index = candidates_[k];
      if (suppressed(index, kept, iou_threshold)) continue;
      if (kept % static_cast<int64_t>(kBlock) == 0) {  // a new block: its lanes past `kept` read zeros
        for (float* column : kept_) std::fill(column + kept, column + kept + static_cast<int64_t>(kBlock), 0.0f);
      }
      for (int column = 0; column < 5; ++column) {
        kept_[column][kept] = all_[column][index];
        placed_[column][position_[index]] = all_[column][index];
      }
      kept_index_[kept++] = index;
      selected(index);
    }
    kept_before_ = kept;
    return kept;
  }

 private:
  static constexpr size_t kBlock = 16;
  static size_t padded(size_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

  /// Whether box `index` overlaps one of the first `kept` kept boxes by more than the
  /// threshold, a block of kBlock kept boxes at a time (the lanes past `kept` hold zeros
  /// and are masked off).
  bool suppressed(int64_t index, int64_t kept, float threshold) const {
    const float box[5] = {all_[0][index], all_[1][index], all_[2][index], all_[3][index], all_[4][index]};
    if (!(box[4] > 0.0f)) return false;
    // The kept boxes that can intersect it: left edge after its own minus the widest box
    // (with a margin for rounding) and before its right edge. Not kept places hold zeros.
    if (widest_ < kEverywhere) {
      const double from = static_cast<double>(box[1]) - widest_ - 1e-6 * (std::fabs(box[1]) + widest_ + 1.0);
      const int64_t lo = std::lower_bound(sorted_left_, sorted_left_ + count_, from,
                                          [](float edge, double value) { return edge < value; }) - sorted_left_;
      const int64_t hi = std::lower_bound(sorted_left_ + lo, sorted_left_ + count_, box[3]) - sorted_left_;
      if (hi - lo < kept) {
        for (int64_t begin = lo; begin < hi; begin += static_cast<int64_t>(kBlock)) {
          const int live = static_cast<int>(std::min<int64_t>(hi - begin, static_cast<int64_t>(kBlock)));
          if (block_overlaps(box, placed_[0] + begin, placed_[1] + begin, placed_[2] + begin, placed_[3] + begin,
                             placed_[4] + begin, live, threshold)) {
            return true;
          }
        }
        return false;
      }
    }
    for (int64_t begin = 0; begin < kept; begin += static_cast<int64_t>(kBlock)) {
      const int live = static_cast<int>(std::min<int64_t>(kept - begin, static_cast<int64_t>(kBlock)));
      if (block_overlaps(box, kept_[0] + begin, kept_[1] + begin, kept_[2] + begin, kept_[3] + begin,
                         kept_[4] + begin, live, threshold)) {
        return true;
      }
    }
    return false;
  }

  /// One block, written so that GCC vectorises it: std::min/max rather than conditionals,
  /// the conditions combined with &, no division by a union of no area (denorm_min leaves
  /// every positive union as it is); compiled for AVX-512 and AVX2 too, picked at load.
  /// As ONNX Runtime: a box of no area overlaps nothing, and the ratio itself is compared.
  __attribute__((target_clones("avx512f", "avx2", "default"))) static bool block_overlaps(
      const float box[5], const float* ky1, const float* kx1, const float* ky2, const float* kx2, const float* karea,
      int live, float threshold) {
    int any = 0;
    for (int lane = 0; lane < static_cast<int>(kBlock); ++lane) {
      const float top = std::max(box[0], ky1[lane]), bottom = std::min(box[2], ky2[lane]);
      const float left = std::max(box[1], kx1[lane]), right = std::min(box[3], kx2[lane]);
      const float height = std::max(bottom - top, 0.0f);
      const float width = std::max(right - left, 0.0f);
      const float intersection = height * width;
      const float union_area = box[4] + karea[lane] - intersection;
      const float ratio = intersection / std::max(union_area, std::numeric_limits<float>::denorm_min());
      int hit = lane < live;
      hit &= karea[lane] > 0.0f;
      hit &= intersection > 0.0f;
      hit &= union_area > 0.0f;
      hit &= ratio > threshold;
      any |= hit;
    }
    return any != 0;
  }

  static constexpr double kEverywhere = std::numeric_limits<double>::infinity();

  int64_t capacity_ = 0;
  int64_t count_ = 0;
  int64_t* candidates_ = nullptr;
  int64_t* position_ = nullptr;    // per box: its place in left-edge order
  int64_t* kept_index_ = nullptr;  // the kept boxes, in selection order
  int64_t kept_before_ = 0;        // how many the latest select() kept (their places to clear)
  float* sorted_left_ = nullptr;   // the left edges in that order
  double widest_ = 0;              // the widest box of positive area (kEverywhere: unknowable)
  float* all_[5] = {};     // y1, x1, y2, x2, area of every box of the batch
  float* kept_[5] = {};    // the same of the kept boxes, in selection order
  float* placed_[5] = {};  // the same of the kept boxes at their place in left-edge order, else zeros
};

}  // namespace ge
