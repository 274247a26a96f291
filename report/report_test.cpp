// Reports from runs with a planted mutant (linked against the mutant build): the JUnit XML
// has the failing testcase with its repro, the Markdown names it, and the PNG heat map,
// read back with libpng, shows the bad elements exactly where the defect is.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/mutant.hpp"
#include "report/heatmap.hpp"
#include "report/report.hpp"

namespace qgate::report {
namespace {

struct Png {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
  Rgb at(int x, int y) const {
    const uint8_t* p = &rgb[(static_cast<size_t>(y) * w + x) * 3];
    return {p[0], p[1], p[2]};
  }
};

// libpng's simplified API reads the file as 8-bit RGB whatever it holds.
Png read_png(const std::string& path) {
  Png img;
  png_image im{};
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path.c_str())) return img;
  EXPECT_EQ(im.format & PNG_FORMAT_FLAG_COLORMAP, 0u);
  im.format = PNG_FORMAT_RGB;
  img.rgb.resize(PNG_IMAGE_SIZE(im));
  if (!png_image_finish_read(&im, nullptr, img.rgb.data(), 0, nullptr)) return Png{};
  img.w = static_cast<int>(im.width);
  img.h = static_cast<int>(im.height);
  return img;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct MutantRun {
  GateReport rep;
  Written written;
  std::string dir;
};

MutantRun run_with_mutant(const char* mutant_name, const char* kernel, const char* property) {
  const mutant::Info* m = mutant::find(mutant_name);
  EXPECT_NE(m, nullptr);
  mutant::activate(m->id);
  GateFilter f;
  f.kernel = kernel;
  f.property = property;
  f.backend = "cpu";
  MutantRun r;
  r.rep = run_gate(f, RunOptions{});
  mutant::activate(mutant::Id::none);
  r.dir = ::testing::TempDir() + "/qgate_report_" + mutant_name;
  std::filesystem::remove_all(r.dir);
  mutant::activate(m->id);  // the heat map re-runs the failing case: with the defect on
  Context ctx{std::string("qgate-mutants gate --kernel ") + kernel + " --mutant " + mutant_name, "generated cases", default_seed()};
  EXPECT_EQ(write_report(r.dir, r.rep, ctx, r.written), "");
  mutant::activate(mutant::Id::none);
  return r;
}

TEST(Report, MutantFailureShowsInJunitMarkdownAndHeatmapWhereTheDefectIs) {
  ASSERT_TRUE(mutant::compiled_in());
  // q4_K sub-blocks 4..7 (elements 128..255 of each 256-element block) read the wrong
  // scale/min high bits: only those columns can be wrong.
  const MutantRun r = run_with_mutant("kquant_scale_lane", "dequant_q4_K_f32_cpu", "random_blocks");
  ASSERT_EQ(r.rep.kernels.size(), 1u);
  ASSERT_FALSE(r.rep.pass());
  const PropertyRun& run = r.rep.kernels[0].runs.at(0).second;
  ASSERT_TRUE(run.failing);

  const std::string xml = slurp(r.written.junit);
  EXPECT_NE(xml.find("<testcase classname=\"qgate.cpu.q4_K.dequant\" name=\"dequant_q4_K_f32_cpu/random_blocks\">"),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"qgate repro --kernel dequant_q4_K_f32_cpu --property random_blocks --case"),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  const std::string md = slurp(r.written.markdown);
  EXPECT_NE(md.find("| q4_K | dequant | **FAIL** 0/1"), std::string::npos) << md;
  // The kernel x property table: the failing run's cell, with its ratio.
  EXPECT_NE(md.find("| kernel | random_blocks |"), std::string::npos) << md;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2g", run.max_ratio);
  EXPECT_NE(md.find(std::string("| dequant_q4_K_f32_cpu | **FAIL** ") + ratio + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("![dequant_q4_K_f32_cpu random_blocks](heatmaps/dequant_q4_K_f32_cpu.random_blocks.png)"),
            std::string::npos) << md;

  ASSERT_EQ(r.written.heatmaps.size(), 1u);
  const Png img = read_png(r.written.heatmaps[0]);
  ASSERT_GT(img.w, 0);
  // The geometry the report used, and the per-element truth, from the same case.
  mutant::activate(mutant::find("kquant_scale_lane")->id);
  const CaseDetail d = case_detail(*r.rep.kernels[0].kernel, *run.failing);
  mutant::activate(mutant::Id::none);
  HeatmapGeometry geo;
  ASSERT_EQ(write_heatmap_png(r.dir + "/again.png", d, geo), "");
  ASSERT_EQ(geo.elems_per_px_col, 1);  // small case: one cell per element
  ASSERT_EQ(geo.width, img.w);
  ASSERT_EQ(geo.height, img.h);
  int64_t red = 0;
  for (int64_t row = 0; row < d.rows; ++row)
    for (int64_t col = 0; col < d.cols; ++col) {
      int x, y;
      element_pixel(geo, row, col, x, y);
      const bool is_red = img.at(x, y) == kBad;
      const bool bad = d.cell[static_cast<size_t>(row * d.cols + col)] == CaseDetail::bad;
      ASSERT_EQ(is_red, bad) << "element [" << row << "," << col << "]";
      if (is_red) {
        ++red;
        EXPECT_GE(col % 256, 128) << "a bad pixel outside sub-blocks 4..7: [" << row << "," << col << "]";
      }
    }
  EXPECT_GT(red, 0);
  EXPECT_EQ(red, d.verdict.nbad);
  // No correct element is drawn in a colour reserved for bad ones.
  for (float t : {0.0f, 1e-5f, 1e-3f, 0.5f, 1.0f}) {
    EXPECT_NE(ratio_colour(t), kBad);
    EXPECT_NE(ratio_colour(t), kNonFinite);
    EXPECT_NE(ratio_colour(t), kUnwritten);
  }
}

TEST(Report, RowsPastMShowAsAnOverwrittenBandAfterTheOutput) {
  // A 4-row GEMM tile writing its padded rows past M: the output is right, the guard region
  // right after it is not. The heat map draws the guard as rows past the end.
  const MutantRun r = run_with_mutant("rows_past_m", "gemm_q4_K_f32_cpu", "ragged_shapes");
  ASSERT_FALSE(r.rep.pass());
  ASSERT_EQ(r.written.heatmaps.size(), 1u);
  const PropertyRun& run = r.rep.kernels[0].runs.at(0).second;
  mutant::activate(mutant::find("rows_past_m")->id);
  const CaseDetail d = case_detail(*r.rep.kernels[0].kernel, *run.failing);
  mutant::activate(mutant::Id::none);
  EXPECT_EQ(d.verdict.nbad, 0);
  ASSERT_GT(d.verdict.redzone_damaged, 0);
  // The damaged slots are the rows directly after the output (rows M.. of the tile).
  ASSERT_FALSE(d.guard_after.empty());
  EXPECT_TRUE(d.guard_after[0]) << "the first slot after the output is overwritten";
  size_t last = 0;
  for (size_t s = 0; s < d.guard_after.size(); ++s)
    if (d.guard_after[s]) last = s;
  EXPECT_LT(last, static_cast<size_t>(3 * d.cols)) << "a 4-row tile writes at most 3 rows past M";
  const Png img = read_png(r.written.heatmaps[0]);
  HeatmapGeometry geo;
  ASSERT_EQ(write_heatmap_png(r.dir + "/again.png", d, geo), "");
  // The first guard row, first column, is orange; the output above it has no red.
  const int gy = geo.guard_top;
  EXPECT_EQ(img.at(0, gy), kGuardDamaged);
  for (int y = 0; y < geo.out_height; ++y)
    for (int x = 0; x < static_cast<int>(d.cols) * geo.cell_x; ++x) ASSERT_NE(img.at(x, y), kBad);
  const std::string md = slurp(r.written.markdown);
  EXPECT_NE(md.find("guard slots overwritten after the output"), std::string::npos);
}

}  // namespace
}  // namespace qgate::report

namespace qgate::report {
// What could not be gated at all (a plugin that does not load) is an error testcase, so a
// CI dashboard shows it and not only the exit code.
TEST(Report, UnloadedPluginIsAnErrorTestcase) {
  GateReport rep;
  rep.unloaded.push_back({"libbroken.so", "ABI version mismatch: built for ABI version 999"});
  const Context ctx{"qgate gate --plugin libbroken.so", "generated cases", default_seed()};
  const std::string xml = junit_xml(rep, ctx, {});
  EXPECT_NE(xml.find("<testcase classname=\"qgate.plugin\" name=\"libbroken.so\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"ABI version mismatch: built for ABI version 999\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuites name=\"qgate gate\" tests=\"1\" failures=\"0\" errors=\"1\""), std::string::npos) << xml;
}
}  // namespace qgate::report
