#include "sim/image.h"

#include <png.h>

#include <cstdio>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd::sim {

namespace {

void png_write_to_string(png_structp png, png_bytep data, png_size_t n) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), n);
}
void png_flush_noop(png_structp) {}

}  // namespace

Image tile_images(const std::vector<Image>& images, int rows, int cols) {
  FN_CHECK(!images.empty() && int(images.size()) <= rows * cols, "tile_images: ", images.size(),
           " images do not fit ", rows, "x", cols);
  const int w = images[0].width, h = images[0].height, gap = 4;
  Image out;
  out.width = cols * w + (cols - 1) * gap;
  out.height = rows * h + (rows - 1) * gap;
  out.rgb.assign(size_t(out.width * out.height * 3), 255);
  for (size_t i = 0; i < images.size(); ++i) {
    FN_CHECK(images[i].width == w && images[i].height == h, "tile_images: images differ in size");
    int r = int(i) / cols, c = int(i) % cols;
    for (int y = 0; y < h; ++y) {
      std::memcpy(out.rgb.data() + (size_t(r * (h + gap) + y) * size_t(out.width) + size_t(c * (w + gap))) * 3,
                  images[i].rgb.data() + size_t(y * w) * 3, size_t(w) * 3);
    }
  }
  return out;
}

std::string encode_png(const Image& image) {
  const std::vector<uint8_t>& rgb = image.rgb;
  const int width = image.width, height = image.height;
  FN_CHECK(rgb.size() == size_t(width) * size_t(height) * 3, "encode_png: ", rgb.size(),
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

void write_png(const std::string& path, const Image& image) {
  write_file_atomic(path, encode_png(image));
}

void write_mp4(const std::string& path, const std::vector<Image>& frames, double fps) {
  FN_CHECK(!frames.empty(), "write_mp4: no frames");
  AtomicFile out(path);
  // even dimensions for yuv420p
  const int w = frames[0].width & ~1, h = frames[0].height & ~1;
  std::string cmd = str_cat("ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgb24 -s ", frames[0].width,
                            "x", frames[0].height, " -r ", fps, " -i - -vf crop=", w, ":", h,
                            ":0:0 -c:v libx264 -pix_fmt yuv420p -f mp4 '", out.temp_path(), "'");
  FILE* pipe = popen(cmd.c_str(), "w");
  FN_CHECK(pipe != nullptr, "cannot start ffmpeg; install it with scripts/setup.sh");
  for (const auto& f : frames) std::fwrite(f.rgb.data(), 1, f.rgb.size(), pipe);
  int status = pclose(pipe);
  FN_CHECK(status == 0, "ffmpeg failed writing ", path, " (exit status ", status, ")");
  out.commit();
}

}  // namespace flashnerd::sim
