// Offscreen rendering of MuJoCo states through EGL (Mesa llvmpipe works without a display):
// RGB frames of a robot at given states, tiled into image strips (MuJoCo truth above the
// learned rollout) and videos (sim/image.h writes them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/image.h"
#include "sim/robot.h"

namespace flashnerd::sim {

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
  // robot's root body. A caption is drawn in the top left corner (MuJoCo's own font), and a
  // second one in the top right.
  Image render(const double* qpos, bool full_nq = false, const std::string& caption = "",
               const std::string& caption_right = "");
  // Renders with `scene` (a copy of the robot's model with its own platform, sim/scene.h;
  // kept alive by the caller) instead of the robot's model; nullptr restores it.
  void use_scene(const mjModel* scene);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Side-by-side pictures of state sequences (e.g. MuJoCo's truth and model rollouts, or
// policies): sequence r holds `steps` states of robot nq (of the whole scene with full_nq),
// captioned labels[r] and the time (steps are 1/fps apart).
// Writes a strip (one row per sequence, `frames` evenly spaced states) to png_path and, when
// mp4_path is not empty, a video of all sequences side by side at fps.
void render_sequences(Renderer& renderer, const std::vector<std::vector<double>>& sequences, int steps, int nq,
                      int frames, const std::vector<std::string>& labels, const std::string& png_path,
                      const std::string& mp4_path, double fps, bool full_nq = false);
// "t = 1.25 s": the time caption of a frame.
std::string time_caption(double seconds);

}  // namespace flashnerd::sim
