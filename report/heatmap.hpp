// A PNG heat map of one case: |err|/bound per output element (rows x columns), the bad
// elements in colours no correct element can have, and below it the guard region after the
// output (writes past the end, e.g. rows past M, show as a band there).
//
// Colours: |err|/bound <= 1 on a dark-purple -> blue -> green -> yellow ramp over
// log10(ratio) in [-4, 0] (ratio 0 and below 1e-4 are the darkest); bad (> bound, or not
// the correctly rounded value where the contract is exact) pure red; a non-finite output
// magenta; an output never written (poison left) white. Separator grey; guard slots dark
// grey when intact, orange when overwritten. A legend strip of the same colours at the
// bottom. Large outputs are shrunk so each pixel shows the worst element under it.
#pragma once
#include <string>

#include "properties/case_detail.hpp"

namespace qgate::report {

struct Rgb {
  uint8_t r, g, b;
  bool operator==(const Rgb&) const = default;
};
inline constexpr Rgb kBad{255, 0, 0}, kNonFinite{255, 0, 255}, kUnwritten{255, 255, 255}, kSeparator{128, 128, 128},
    kGuardIntact{40, 40, 40}, kGuardDamaged{255, 140, 0};
Rgb ratio_colour(float ratio);  // for ratio <= 1

struct HeatmapGeometry {
  int width = 0, height = 0;
  int cell_x = 1, cell_y = 1;         // pixels per element (>= 1 each)
  int64_t elems_per_px_row = 1, elems_per_px_col = 1;  // > 1 when shrunk
  int out_height = 0;                 // pixel rows of the output part (then separator, guard, legend)
  int guard_top = 0;                  // first pixel row of the guard band
  int64_t bad_elements = 0, guard_damaged_slots = 0;
};

// Returns "" or the reason the PNG could not be written.
std::string write_heatmap_png(const std::string& path, const CaseDetail& d, HeatmapGeometry& geo);

// Where output element (row, col) is drawn: its top-left pixel.
inline void element_pixel(const HeatmapGeometry& g, int64_t row, int64_t col, int& x, int& y) {
  x = static_cast<int>(col / g.elems_per_px_col) * g.cell_x;
  y = static_cast<int>(row / g.elems_per_px_row) * g.cell_y;
}

}  // namespace qgate::report
