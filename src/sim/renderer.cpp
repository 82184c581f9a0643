#include "sim/renderer.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd::sim {

struct Renderer::Impl {
  const Robot* robot = nullptr;
  const mjModel* scene_model = nullptr;  // the robot's model unless use_scene() replaced it
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  mjData* data = nullptr;
  mjvScene scene;
  mjrContext con;
  mjvOption opt;
  mjvCamera cam;
  int width = 0, height = 0;
  // A floating base is followed; a fixed-base robot is framed once, so that its motion (a cart
  // on its rail) shows against the marks of its slide joints.
  bool follow_root = true;
  double lookat[3] = {0, 0, 0};
  std::vector<mjvGeom> marks;  // drawn with every frame
  bool backdrop = false;       // the model has no skybox: a backdrop behind the robot instead
};

namespace {

// The rail of every slide joint of the robot at its reference pose: a thin bar over the joint's
// range and a tick every 0.5 m, in the world frame (slide joints move their body along it).
std::vector<mjvGeom> slide_joint_marks(const Robot& robot, const mjModel* m, const mjData* d) {
  std::vector<mjvGeom> marks;
  const float grey[4] = {0.55f, 0.55f, 0.55f, 1.0f}, light[4] = {0.85f, 0.85f, 0.85f, 1.0f};
  const mjtNum identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] != mjJNT_SLIDE || !m->jnt_limited[j] || !robot.is_robot_body(m->jnt_bodyid[j])) continue;
    const mjtNum* anchor = d->xanchor + 3 * j;
    const mjtNum* axis = d->xaxis + 3 * j;
    const double lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
    mjtNum from[3], to[3];
    for (int i = 0; i < 3; ++i) {
      from[i] = anchor[i] + lo * axis[i];
      to[i] = anchor[i] + hi * axis[i];
    }
    mjvGeom rail;
    mjv_initGeom(&rail, mjGEOM_CAPSULE, nullptr, nullptr, nullptr, grey);
    mjv_makeConnector(&rail, mjGEOM_CAPSULE, 0.01, from[0], from[1], from[2], to[0], to[1], to[2]);
    marks.push_back(rail);
    for (double x = std::ceil(lo / 0.5) * 0.5; x <= hi + 1e-9; x += 0.5) {
      mjtNum at[3], size[3] = {0.015, 0.015, std::abs(x) < 1e-9 ? 0.08 : 0.05};
      for (int i = 0; i < 3; ++i) at[i] = anchor[i] + x * axis[i];
      mjvGeom tick;
      mjv_initGeom(&tick, mjGEOM_BOX, size, at, identity, light);
      marks.push_back(tick);
    }
  }
  return marks;
}

bool has_skybox(const mjModel* m) {
  for (int t = 0; t < m->ntex; ++t)
    if (m->tex_type[t] == mjTEXTURE_SKYBOX) return true;
  return false;
}

// A pale blue wall behind the look-at point, facing the camera and filling its view, so that a
// model without a skybox is not drawn on black (dark robots and shadows vanish on it).
mjvGeom backdrop(const mjvCamera& cam) {
  const double az = cam.azimuth * M_PI / 180, el = cam.elevation * M_PI / 180;
  const double forward[3] = {std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el)};
  const double up[3] = {-std::sin(el) * std::cos(az), -std::sin(el) * std::sin(az), std::cos(el)};
  const double right[3] = {forward[1] * up[2] - forward[2] * up[1], forward[2] * up[0] - forward[0] * up[2],
                           forward[0] * up[1] - forward[1] * up[0]};
  const double behind = cam.distance, half = 4 * cam.distance;
  mjtNum size[3] = {half, half, 0.01}, pos[3], mat[9];
  for (int i = 0; i < 3; ++i) {
    pos[i] = cam.lookat[i] + behind * forward[i];
    mat[3 * i + 0] = right[i];  // columns: the box's axes in the world
    mat[3 * i + 1] = up[i];
    mat[3 * i + 2] = forward[i];
  }
  const float pale_blue[4] = {0.62f, 0.74f, 0.88f, 1.0f};
  mjvGeom g;
  mjv_initGeom(&g, mjGEOM_BOX, size, pos, mat, pale_blue);
  g.emission = 0.7f;  // evenly lit whatever the lights
  return g;
}

EGLDisplay surfaceless_display() {
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) return d;
  }
  return eglGetDisplay(EGL_DEFAULT_DISPLAY);
}

}  // namespace

Renderer::Renderer(const Robot& robot, int width, int height) : impl_(new Impl) {
  Impl& r = *impl_;
  r.robot = &robot;
  r.display = surfaceless_display();
  FN_CHECK(r.display != EGL_NO_DISPLAY, "offscreen rendering: no EGL display; install Mesa's EGL "
           "(libegl-mesa0, libgl1-mesa-dri) via scripts/setup.sh");
  EGLint major, minor;
  FN_CHECK(eglInitialize(r.display, &major, &minor), "offscreen rendering: eglInitialize failed "
           "(error 0x", std::hex, eglGetError(), "); is Mesa's EGL installed?");
  // MuJoCo renders into its own framebuffer object, so any OpenGL-capable config will do;
  // Mesa's surfaceless platform may offer none, then a config-less context is used.
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
  if (!eglChooseConfig(r.display, config_attribs, &config, 1, &n) || n == 0) config = nullptr;
  FN_CHECK(eglBindAPI(EGL_OPENGL_API), "offscreen rendering: eglBindAPI(OpenGL) failed");
  r.context = eglCreateContext(r.display, config, EGL_NO_CONTEXT, nullptr);
  FN_CHECK(r.context != EGL_NO_CONTEXT, "offscreen rendering: eglCreateContext failed");
  FN_CHECK(eglMakeCurrent(r.display, EGL_NO_SURFACE, EGL_NO_SURFACE, r.context),
           "offscreen rendering: eglMakeCurrent without a surface failed");

  const mjModel* m = robot.model();
  r.width = std::min(width, m->vis.global.offwidth);
  r.height = std::min(height, m->vis.global.offheight);
  r.data = mj_makeData(m);
  mjv_defaultScene(&r.scene);
  mjr_defaultContext(&r.con);
  mjv_defaultOption(&r.opt);
  mjv_defaultCamera(&r.cam);
  mjv_makeScene(m, &r.scene, 2000);
  mjr_makeContext(m, &r.con, mjFONTSCALE_100);
  mjr_setBuffer(mjFB_OFFSCREEN, &r.con);
  r.cam.type = mjCAMERA_FREE;  // lookat set to the robot's root at every frame
  // frame the robot, not the whole scene (floors make the model's extent huge)
  mj_forward(m, r.data);
  double reach = 0.1;
  const double* c = r.data->xpos + 3 * robot.root_body();
  for (int g = 0; g < m->ngeom; ++g) {
    if (!robot.is_robot_body(m->geom_bodyid[g])) continue;
    const double* p = r.data->geom_xpos + 3 * g;
    double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
    reach = std::max(reach, std::sqrt(dx * dx + dy * dy + dz * dz) + m->geom_rbound[g]);
  }
  r.cam.distance = 2.6 * reach + 0.2;  // the whole reach inside a 45° view, a margin around it
  const RobotSpec::CameraSpec view = robot.spec().camera.value_or(RobotSpec::CameraSpec{});
  r.cam.azimuth = view.azimuth;
  r.cam.elevation = view.elevation;
  r.follow_root = robot.floating_base();
  for (int i = 0; i < 3; ++i) r.lookat[i] = c[i];
  r.marks = slide_joint_marks(robot, m, r.data);
  r.backdrop = !has_skybox(m);
}

Renderer::~Renderer() {
  Impl& r = *impl_;
  mjr_freeContext(&r.con);
  mjv_freeScene(&r.scene);
  if (r.data) mj_deleteData(r.data);
  if (r.context != EGL_NO_CONTEXT) eglDestroyContext(r.display, r.context);
  if (r.display != EGL_NO_DISPLAY) eglTerminate(r.display);
}

Image Renderer::render(const double* qpos, bool full_nq, const std::string& caption,
                       const std::string& caption_right) {
  Impl& r = *impl_;
  const mjModel* m = r.scene_model ? r.scene_model : r.robot->model();
  if (full_nq) {
    std::memcpy(r.data->qpos, qpos, sizeof(double) * size_t(m->nq));
  } else {
    std::memcpy(r.data->qpos + r.robot->qpos_offset(), qpos, sizeof(double) * size_t(r.robot->layout().nq));
  }
  mj_forward(m, r.data);
  for (int i = 0; i < 3; ++i)
    r.cam.lookat[i] = r.follow_root ? r.data->xpos[3 * r.robot->root_body() + i] : r.lookat[i];
  mjrRect viewport = {0, 0, r.width, r.height};
  mjv_updateScene(m, r.data, &r.opt, nullptr, &r.cam, mjCAT_ALL, &r.scene);
  for (const mjvGeom& g : r.marks)
    if (r.scene.ngeom < r.scene.maxgeom) r.scene.geoms[r.scene.ngeom++] = g;
  if (r.backdrop && r.scene.ngeom < r.scene.maxgeom) r.scene.geoms[r.scene.ngeom++] = backdrop(r.cam);
  mjr_render(viewport, &r.scene, &r.con);
  if (!caption.empty()) mjr_overlay(mjFONT_NORMAL, mjGRID_TOPLEFT, viewport, caption.c_str(), nullptr, &r.con);
  if (!caption_right.empty())
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPRIGHT, viewport, caption_right.c_str(), nullptr, &r.con);
  Image img;
  img.width = r.width;
  img.height = r.height;
  img.rgb.resize(size_t(r.width * r.height * 3));
  std::vector<uint8_t> flipped(img.rgb.size());
  mjr_readPixels(flipped.data(), nullptr, viewport, &r.con);
  const size_t row = size_t(r.width) * 3;
  for (int y = 0; y < r.height; ++y)  // OpenGL's first row is the bottom
    std::memcpy(img.rgb.data() + size_t(y) * row, flipped.data() + size_t(r.height - 1 - y) * row, row);
  return img;
}

void render_sequences(Renderer& renderer, const std::vector<std::vector<double>>& sequences, int steps, int nq,
                      int frames, const std::vector<std::string>& labels, const std::string& png_path,
                      const std::string& mp4_path, double fps, bool full_nq) {
  FN_CHECK(steps >= 2 && frames >= 2 && labels.size() == sequences.size(),
           "render_sequences: need 2 steps, 2 frames and a label per sequence");
  const size_t R = sequences.size();
  std::vector<Image> strip;
  for (size_t r = 0; r < R; ++r) {
    for (int c = 0; c < frames; ++c) {
      const int h = int(int64_t(c) * (steps - 1) / (frames - 1));
      strip.push_back(renderer.render(sequences[r].data() + size_t(h) * size_t(nq), full_nq, labels[r],
                                      time_caption(h / fps)));
    }
  }
  write_png(png_path, tile_images(strip, int(R), frames));
  if (mp4_path.empty()) return;
  std::vector<Image> video;
  for (int h = 0; h < steps; ++h) {
    std::vector<Image> panels;
    for (size_t r = 0; r < R; ++r) {
      panels.push_back(renderer.render(sequences[r].data() + size_t(h) * size_t(nq), full_nq, labels[r],
                                       time_caption(h / fps)));
    }
    video.push_back(tile_images(panels, 1, int(R)));
  }
  write_mp4(mp4_path, video, fps);
}

std::string time_caption(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "t = %.2f s", seconds);
  return buf;
}

void Renderer::use_scene(const mjModel* scene) { impl_->scene_model = scene; }

}  // namespace flashnerd::sim
