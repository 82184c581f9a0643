// The output options policy-video and plan-video share: a directory for a PNG strip and an
// MP4, picture size and count, refused when they already hold the files unless --overwrite.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "core/output_policy.h"

namespace flashnerd::cli {

struct VideoOutput {
  std::string out;
  int frames = 8;
  int width = 480, height = 360;
  bool video = true;
  bool overwrite = false;
  std::string strip, mp4;  // the files' names in --out, set with the options

  std::string strip_path() const { return out + "/" + strip; }
  std::string mp4_path() const { return video ? out + "/" + mp4 : ""; }  // empty with --no-video
};

// --out (its help names `strip` and `mp4`), --frames, --width, --height, --no-video, --overwrite.
void add_video_output_options(CLI::App& sub, VideoOutput& v, const std::string& strip, const std::string& mp4);

// Checks --out for the strip and the MP4 (refused unless --overwrite), creates it, and locks it
// for the command's life.
std::unique_ptr<OutputLock> claim_video_output(const VideoOutput& v);

// Prints a video command's summary (cli_common.h print_summary): `summary` with the steps
// shown, one entry per strip row, and the files written ("strip", and "video" unless --no-video).
void print_video_summary(const CommonOptions& common, const VideoOutput& v, const std::string& title, int64_t steps,
                         const nlohmann::json& rows, nlohmann::json summary = nlohmann::json::object());

}  // namespace flashnerd::cli
