#include "cli/video_output.h"

#include "cli/option_values.h"
#include "core/atomic_file.h"

namespace flashnerd::cli {

void add_video_output_options(CLI::App& sub, VideoOutput& v, const std::string& strip, const std::string& mp4) {
  v.strip = strip;
  v.mp4 = mp4;
  sub.add_option("--out", v.out, "Output directory (" + strip + ", " + mp4 + ")")->required();
  sub.add_flag("--overwrite", v.overwrite, "Replace the strip and video an earlier run left in --out");
  sub.add_option("--frames", v.frames, "Pictures per strip row")->check(in_range(2, 64))->capture_default_str();
  sub.add_option("--width", v.width, "Picture width in pixels")->check(in_range(16, 4096))->capture_default_str();
  sub.add_option("--height", v.height, "Picture height in pixels")->check(in_range(16, 4096))->capture_default_str();
  sub.add_flag("!--no-video", v.video, "Only the PNG strip");
}

std::unique_ptr<OutputLock> claim_video_output(const VideoOutput& v) {
  check_output_directory_free(v.out, "--out", {v.strip.c_str(), v.mp4.c_str()}, v.overwrite);
  auto lock = std::make_unique<OutputLock>(v.out, "--out");
  ensure_writable_directory(v.out);
  return lock;
}

void print_video_summary(const CommonOptions& common, const VideoOutput& v, const std::string& title, int64_t steps,
                         const nlohmann::json& rows, nlohmann::json summary) {
  summary["steps"] = steps;
  summary["rows"] = rows;
  summary["strip"] = v.strip_path();
  if (v.video) summary["video"] = v.mp4_path();
  print_summary(common, title, summary);
}

}  // namespace flashnerd::cli
