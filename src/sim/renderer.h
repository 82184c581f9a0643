// Offscreen rendering of MuJoCo states through EGL (Mesa llvmpipe works without a display):
// RGB frames of a robot at given states, tiled into image strips (MuJoCo truth above the
// learned rollout) and videos (raw frames piped to ffmpeg). I/O lives here, never in core.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/robot.h"

namespace flashnerd::sim {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // (height, width, 3), top row first
};

class Renderer {
 public:
  // Creates an EGL context and MuJoCo's offscreen buffer; throws with a hint when EGL is
  // unavailable. width/height are capped by the model's offscreen buffer size.
  Renderer(const Robot& robot, int width = 480, int height = 360);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Renders the robot at its generalized coordinates (robot nq, objects at their defaults),
  // or the whole scene when full_nq is true (qpos of size model nq); the camera looks at the
  // robot's root body.
  Image render(const double* qpos, bool full_nq = false);
  // Renders with `scene` (a copy of the robot's model with its own platform, sim/scene.h;
  // kept alive by the caller) instead of the robot's model; nullptr restores it.
  void use_scene(const mjModel* scene);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Tiles images into rows x cols (row-major), all of one size, with a thin separator.
Image tile_images(const std::vector<Image>& images, int rows, int cols);
// Draws a solid bar of colour at the top of an image (labels rows without a font).
void mark_image(Image& image, uint32_t rgb, int thickness = 6);
// Writes a PNG atomically.
void write_png(const std::string& path, const Image& image);
// Side-by-side pictures of state sequences (e.g. MuJoCo's truth and model rollouts, or
// policies): sequence r holds `steps` states of robot nq (of the whole scene with full_nq),
// drawn with a bar of colors[r].
// Writes a strip (one row per sequence, `frames` evenly spaced states) to png_path and, when
// mp4_path is not empty, a video of all sequences side by side at fps.
void render_sequences(Renderer& renderer, const std::vector<std::vector<double>>& sequences, int steps, int nq,
                      int frames, const std::vector<uint32_t>& colors, const std::string& png_path,
                      const std::string& mp4_path, double fps, bool full_nq = false);
// Encodes frames as H.264 MP4 with ffmpeg (written atomically). Throws when ffmpeg fails.
void write_mp4(const std::string& path, const std::vector<Image>& frames, double fps);

}  // namespace flashnerd::sim
