// The output options policy-video and plan-video share: a directory for a PNG strip and an
// MP4, picture size and count, refused when they already hold the files unless --overwrite.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/output_policy.h"

namespace flashnerd::cli {

struct VideoOutput {
  std::string out;
  int frames = 8;
  int width = 480, height = 360;
  bool video = true;
  bool overwrite = false;
};

// --out (its help names `strip` and `mp4`), --frames, --width, --height, --no-video, --overwrite.
void add_video_output_options(CLI::App& sub, VideoOutput& v, const std::string& strip, const std::string& mp4);

// Checks --out for `strip` / `mp4` (refused unless --overwrite), creates it, and locks it for
// the command's life.
std::unique_ptr<OutputLock> claim_video_output(const VideoOutput& v, const std::string& strip, const std::string& mp4);

}  // namespace flashnerd::cli
