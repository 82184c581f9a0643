#include "core/plot_png.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd {

namespace {

// 5x7 glyphs, one string of 35 cells per character ('#' = ink). Upper case prints as lower.
struct Glyph {
  char c;
  const char* rows;
};
const Glyph kFont[] = {
    {'0', " ### #   ##  ### # ###  ##   # ### "}, {'1', "  #   ##    #    #    #    #   ### "},
    {'2', " ### #   #    #   #   #   #    ####"}, {'3', "#####   #   #     #     ##   # ### "},
    {'4', "   #   ##  # # #  # #####   #    # "}, {'5', "######    ####     #    ##   # ### "},
    {'6', "  ##  #   #    #### #   ##   # ### "}, {'7', "#####    #   #   #   #    #    #   "},
    {'8', " ### #   ##   # ### #   ##   # ### "}, {'9', " ### #   ##   # ####    #   #  ##  "},
    {'.', "                          ##   ##  "}, {'-', "               ###                 "},
    {'+', "       #    #  #####  #    #       "}, {':', "      ##   ##        ##   ##       "},
    {'(', "   #   #   #    #    #     #     # "}, {')', " #     #     #    #    #   #   #   "},
    {'/', "    #    #   #   #   #   #    #    "}, {'_', "                              #####"},
    {'=', "          #####     #####          "}, {',', "                     ##   ##   #   "},
    {'a', "           ###     # #####   # ####"}, {'b', "#    #    # ## ##  ##   ##   ##### "},
    {'c', "           ### #    #    #   # ### "}, {'d', "    #    # ## ##  ###   ##   # ####"},
    {'e', "          ### #   ####### #     ###"}, {'f', "  ##  #  # #   ###   #    #    #   "},
    {'g', "      #####   ##   # ####    # ### "}, {'h', "#    #    # ## ##  ##   ##   ##   #"},
    {'i', "  #         ##    #    #    #   ###"}, {'j', "   #       ##    #    ##  # #  ##  "},
    {'k', "#    #    #  # # #  ##   # #  #  # "}, {'l', " ##    #    #    #    #    #   ### "},
    {'m', "          ## # # # ## # ##   ##   #"}, {'n', "          # ## ##  ##   ##   ##   #"},
    {'o', "           ### #   ##   ##   # ### "}, {'p', "          #### #   ##### #    #    "},
    {'q', "           ## ##  ## ####    #    #"}, {'r', "          # ## ##   #    #    #    "},
    {'s', "           #####     ###     ##### "}, {'t', " #    #   ###  #    #    #  #  ##  "},
    {'u', "          #   ##   ##   ##  ## ## #"}, {'v', "          #   ##   ##   # # #   #  "},
    {'w', "          #   ##   ## # ## # # # # "}, {'x', "          #   # # #   #   # # #   #"},
    {'y', "          #   ##   # ####    # ### "}, {'z', "          #####   #   #   #   #####"},
};

const char* glyph(char c) {
  if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  for (const auto& g : kFont)
    if (g.c == c) return g.rows;
  return nullptr;  // space and unknown characters print blank
}

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(size_t(w) * size_t(h) * 3, 255) {}
  void set(int x, int y, uint32_t rgb) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    uint8_t* p = &px_[(size_t(y) * size_t(w_) + size_t(x)) * 3];
    p[0] = uint8_t(rgb >> 16);
    p[1] = uint8_t(rgb >> 8);
    p[2] = uint8_t(rgb);
  }
  void rect(int x0, int y0, int x1, int y1, uint32_t rgb) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) set(x, y, rgb);
  }
  // Bresenham, `thick` pixels wide.
  void line(int x0, int y0, int x1, int y1, uint32_t rgb, int thick = 1) {
    int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (int guard = 0; guard < 100000; ++guard) {
      rect(x0 - thick / 2, y0 - thick / 2, x0 + (thick - 1) / 2, y0 + (thick - 1) / 2, rgb);
      if (x0 == x1 && y0 == y1) break;
      int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  // Text at scale 1 (6 px per character); vertical = rotated 90° counter-clockwise.
  void text(int x, int y, const std::string& s, uint32_t rgb, bool vertical = false) {
    for (size_t i = 0; i < s.size(); ++i) {
      const char* g = glyph(s[i]);
      if (!g) continue;
      for (int r = 0; r < 7; ++r)
        for (int c = 0; c < 5; ++c) {
          if (g[r * 5 + c] != '#') continue;
          if (vertical) {
            set(x + r, y - int(i) * 6 - c, rgb);
          } else {
            set(x + int(i) * 6 + c, y + r, rgb);
          }
        }
    }
  }
  std::vector<uint8_t> take() { return std::move(px_); }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

std::string tick_label(double v) {
  char buf[32];
  double a = std::fabs(v);
  if (v == 0) return "0";
  if (a >= 1e4 || a < 1e-2) {
    std::snprintf(buf, sizeof buf, "%.0e", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

// "Nice" linear ticks covering [lo, hi].
std::vector<double> linear_ticks(double lo, double hi) {
  double span = hi - lo;
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 6) {
      step *= m;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) t.push_back(v);
  return t;
}

void png_write_to_string(png_structp png, png_bytep data, png_size_t n) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), n);
}
void png_flush_noop(png_structp) {}

}  // namespace

std::vector<uint8_t> render_line_plot(const std::vector<PlotSeries>& series, const PlotOptions& opts) {
  const int W = std::max(opts.width, 200), H = std::max(opts.height, 150);
  Canvas cv(W, H);
  const int left = 70, right = W - 20, top = 30, bottom = H - 45;
  auto ty = [&](double y) { return opts.log_y ? std::log10(y) : y; };
  auto usable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!opts.log_y || y > 0);
  };
  // data range
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, ty(s.y[i]));
      y1 = std::max(y1, ty(s.y[i]));
    }
  if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-12) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-12) y0 -= 0.5, y1 += 0.5;
  if (opts.log_y) {
    y0 = std::floor(y0);
    y1 = std::ceil(y1);
  } else {
    double pad = 0.05 * (y1 - y0);
    y0 -= pad;
    y1 += pad;
  }
  auto px = [&](double x) { return left + int(std::lround((x - x0) / (x1 - x0) * (right - left))); };
  auto py = [&](double y) { return bottom - int(std::lround((ty(y) - y0) / (y1 - y0) * (bottom - top))); };
  // grid and ticks
  const uint32_t grid = 0xe0e0e0, axis = 0x000000;
  for (double v : linear_ticks(x0, x1)) {
    int x = left + int(std::lround((v - x0) / (x1 - x0) * (right - left)));
    cv.line(x, top, x, bottom, grid);
    std::string l = tick_label(v);
    cv.text(x - int(l.size()) * 3, bottom + 6, l, axis);
  }
  std::vector<double> yt;
  if (opts.log_y) {
    for (double e = y0; e <= y1 + 1e-9; e += std::max(1.0, std::ceil((y1 - y0) / 8))) yt.push_back(e);
  } else {
    yt = linear_ticks(y0, y1);
  }
  for (double v : yt) {
    int y = bottom - int(std::lround((v - y0) / (y1 - y0) * (bottom - top)));
    cv.line(left, y, right, y, grid);
    std::string l = tick_label(opts.log_y ? std::pow(10.0, v) : v);
    cv.text(left - 6 - int(l.size()) * 6, y - 3, l, axis);
  }
  cv.line(left, bottom, right, bottom, axis);
  cv.line(left, top, left, bottom, axis);
  // series
  for (const auto& s : series) {
    bool have_prev = false;
    int xp = 0, yp = 0;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) {
        have_prev = false;
        continue;
      }
      int x = px(s.x[i]), y = py(s.y[i]);
      if (have_prev) cv.line(xp, yp, x, y, s.rgb, 2);
      if (s.markers) cv.rect(x - 2, y - 2, x + 2, y + 2, s.rgb);
      xp = x, yp = y, have_prev = true;
    }
  }
  // labels, title, legend
  cv.text(left + (right - left) / 2 - int(opts.x_label.size()) * 3, H - 16, opts.x_label, axis);
  cv.text(8, top + (bottom - top) / 2 + int(opts.y_label.size()) * 3, opts.y_label, axis, true);
  cv.text(left + (right - left) / 2 - int(opts.title.size()) * 3, 10, opts.title, axis);
  int ly = top + 8;
  for (const auto& s : series) {
    int lx = right - 10 - int(s.label.size()) * 6 - 22;
    cv.rect(lx, ly + 2, lx + 14, ly + 4, s.rgb);
    cv.text(lx + 20, ly, s.label, axis);
    ly += 12;
  }
  return cv.take();
}

std::string encode_png_rgb(const std::vector<uint8_t>& rgb, int width, int height) {
  FN_CHECK(rgb.size() == size_t(width) * size_t(height) * 3, "encode_png_rgb: ", rgb.size(),
           " bytes for a ", width, "x", height, " RGB image");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  FN_CHECK(png != nullptr, "libpng: cannot create a write struct");
  png_infop info = png_create_info_struct(png);
  std::string out;
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error("libpng: encoding a PNG failed");
  }
  png_set_write_fn(png, &out, png_write_to_string, png_flush_noop);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(&rgb[size_t(y) * size_t(width) * 3]));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

void write_line_plot_png(const std::string& path, const std::vector<PlotSeries>& series,
                         const PlotOptions& opts) {
  const int W = std::max(opts.width, 200), H = std::max(opts.height, 150);
  write_file_atomic(path, encode_png_rgb(render_line_plot(series, opts), W, H));
}

}  // namespace flashnerd
