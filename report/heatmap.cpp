// PNG through libpng: Debian's libpng-dev is already a qgate dependency, it is the
// reference PNG codec, and a heat map needs nothing but 8-bit RGB rows.
#include "report/heatmap.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <vector>

namespace qgate::report {

Rgb ratio_colour(float ratio) {
  // Five stops of a viridis-like ramp: no red, magenta or white anywhere on it.
  static constexpr Rgb stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  double t = ratio > 0 ? (std::log10(static_cast<double>(ratio)) + 4.0) / 4.0 : 0.0;
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto mixc = [&](uint8_t a, uint8_t b) { return static_cast<uint8_t>(std::lround(a + (b - a) * f)); };
  return {mixc(stops[i].r, stops[i + 1].r), mixc(stops[i].g, stops[i + 1].g), mixc(stops[i].b, stops[i + 1].b)};
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Image {
  int w, h;
  std::vector<uint8_t> px;
  Image(int w_, int h_) : w(w_), h(h_), px(static_cast<size_t>(w_) * h_ * 3, 0) {}
  void fill(int x0, int y0, int cw, int ch, Rgb c) {
    for (int y = std::max(0, y0); y < std::min(h, y0 + ch); ++y)
      for (int x = std::max(0, x0); x < std::min(w, x0 + cw); ++x) {
        uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 3];
        p[0] = c.r, p[1] = c.g, p[2] = c.b;
      }
  }
};

std::string write_png(const std::string& path, const Image& img) {
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) return path + ": cannot open for writing";
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, nullptr);
    std::fclose(fp);
    return "libpng: cannot create the write structures";
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(fp);
    return path + ": libpng write error";
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, static_cast<png_uint_32>(img.w), static_cast<png_uint_32>(img.h), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < img.h; ++y)
    png_write_row(png, const_cast<png_bytep>(&img.px[static_cast<size_t>(y) * img.w * 3]));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(fp) != 0) return path + ": write failed";
  return {};
}

}  // namespace

std::string write_heatmap_png(const std::string& path, const CaseDetail& d, HeatmapGeometry& g) {
  if (d.rows <= 0 || d.cols <= 0) return "empty output";
  constexpr int64_t kMaxPx = 1024;
  g = HeatmapGeometry{};
  g.elems_per_px_col = ceil_div(d.cols, kMaxPx);
  // The guard is drawn as rows past the end: as many as the output has (at least 4), more
  // only to reach the last overwritten slot.
  int64_t last_damaged = -1;
  for (size_t s = 0; s < d.guard_after.size(); ++s)
    if (d.guard_after[s]) last_damaged = static_cast<int64_t>(s);
  const int64_t guard_rows = std::min(ceil_div(static_cast<int64_t>(d.guard_after.size()), d.cols),
                                      std::max({d.rows, int64_t{4}, last_damaged / d.cols + 1}));
  g.elems_per_px_row = ceil_div(d.rows + guard_rows, kMaxPx);
  const int pw = static_cast<int>(ceil_div(d.cols, g.elems_per_px_col));
  const int ph = static_cast<int>(ceil_div(d.rows, g.elems_per_px_row));
  const int gh = static_cast<int>(ceil_div(guard_rows, g.elems_per_px_row));
  g.cell_x = static_cast<int>(std::clamp<int64_t>(kMaxPx / pw, 1, 32));
  g.cell_y = static_cast<int>(std::clamp<int64_t>(std::max<int64_t>(g.cell_x, 128 / std::max(ph, 1)), 1, 32));
  g.out_height = ph * g.cell_y;
  constexpr int kSep = 3, kLegendGap = 6, kLegend = 14;
  g.width = std::max(pw * g.cell_x, 160);
  g.height = g.out_height + kSep + gh * g.cell_y + kLegendGap + kLegend;
  Image img(g.width, g.height);
  img.fill(0, 0, g.width, g.height, {0, 0, 0});

  // Output: each pixel cell shows the worst element under it.
  std::vector<uint8_t> cls(static_cast<size_t>(pw) * ph, 0);
  std::vector<float> ratio(cls.size(), 0.0f);
  for (int64_t r = 0; r < d.rows; ++r)
    for (int64_t c = 0; c < d.cols; ++c) {
      const size_t i = static_cast<size_t>(r * d.cols + c);
      const size_t p = static_cast<size_t>((r / g.elems_per_px_row) * pw + c / g.elems_per_px_col);
      cls[p] = std::max(cls[p], d.cell[i]);
      if (d.cell[i] == CaseDetail::ok) ratio[p] = std::max(ratio[p], d.ratio[i]);
      g.bad_elements += d.cell[i] != CaseDetail::ok;
    }
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x) {
      const size_t p = static_cast<size_t>(y) * pw + x;
      const Rgb c = cls[p] == CaseDetail::unwritten ? kUnwritten
                  : cls[p] == CaseDetail::nonfinite ? kNonFinite
                  : cls[p] == CaseDetail::bad       ? kBad
                                                    : ratio_colour(ratio[p]);
      img.fill(x * g.cell_x, y * g.cell_y, g.cell_x, g.cell_y, c);
    }
  // Separator, then the guard region after the output laid out as rows past the end.
  img.fill(0, g.out_height, pw * g.cell_x, kSep, kSeparator);
  const int gy0 = g.out_height + kSep;
  g.guard_top = gy0;
  std::vector<uint8_t> gd(static_cast<size_t>(pw) * std::max(gh, 0), 0);
  for (size_t s = 0; s < d.guard_after.size() && static_cast<int64_t>(s) < guard_rows * d.cols; ++s) {
    const int64_t r = static_cast<int64_t>(s) / d.cols, c = static_cast<int64_t>(s) % d.cols;
    const size_t p = static_cast<size_t>((r / g.elems_per_px_row) * pw + c / g.elems_per_px_col);
    gd[p] |= d.guard_after[s];
    g.guard_damaged_slots += d.guard_after[s] != 0;
  }
  for (int y = 0; y < gh; ++y)
    for (int x = 0; x < pw; ++x)
      img.fill(x * g.cell_x, gy0 + y * g.cell_y, g.cell_x, g.cell_y,
               gd[static_cast<size_t>(y) * pw + x] ? kGuardDamaged : kGuardIntact);
  // Legend: the ramp for |err|/bound from 1e-4 to 1 (60% of the width), then bad,
  // non-finite, unwritten, guard overwritten.
  const int ly = g.height - kLegend;
  const int ramp = g.width * 3 / 5;
  for (int x = 0; x < ramp; ++x)
    img.fill(x, ly, 1, kLegend, ratio_colour(static_cast<float>(std::pow(10.0, -4.0 + 4.0 * x / std::max(ramp - 1, 1)))));
  const Rgb patches[] = {kBad, kNonFinite, kUnwritten, kGuardDamaged};
  const int pwid = (g.width - ramp) / 4;
  for (int i = 0; i < 4; ++i) img.fill(ramp + i * pwid + 2, ly, pwid - 2, kLegend, patches[i]);
  return write_png(path, img);
}

}  // namespace qgate::report
