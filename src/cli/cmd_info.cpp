// flashnerd info: what this machine runs — CPU features found, the kernel variants chosen for
// each precision, what --precision auto means here, and the thread count a pool gets.
#include <iostream>
#include <thread>

#include "cli/cli_common.h"
#include "engine/cpu/cpu_features.h"

namespace flashnerd::cli {

namespace {

struct InfoArgs {
  CommonOptions common;
};

void run_info(const InfoArgs& a) {
  const engine::CpuFeatures& cpu = engine::cpu_features();
  const engine::Precision auto_precision = engine::resolve_precision(engine::Precision::Auto);
  // the kernels a context would run: a tiny random model per precision
  auto kernels = [](engine::Precision p) {
    const ModelConfig c = engine::synthetic_config(Arch::FlashNeRD, ModelPreset::Tiny, 4, 2);
    auto model = engine::Model::random(c, 1, engine::ModelOptions{p});
    return engine::Context(*model, engine::ContextOptions{}).kernel_summary();
  };
  nlohmann::json j = {{"cpu", cpu.model}, {"vendor", cpu.vendor}, {"hardware_threads", std::thread::hardware_concurrency()},
                      {"avx2_fma", cpu.avx2_fma}, {"avx512", cpu.avx512}, {"avx512_bf16", cpu.avx512_bf16},
                      {"amx_bf16", cpu.amx_bf16}, {"kernel_level", engine::isa_name(cpu.best)},
                      {"precision_auto", engine::precision_name(auto_precision)},
                      {"kernels_fp32", kernels(engine::Precision::FP32)}};
  if (!cpu.amx_note.empty()) j["amx_note"] = cpu.amx_note;
  if (!cpu.cap.empty()) j["max_isa_cap"] = cpu.cap;
  if (cpu.native_bf16()) j["kernels_bf16"] = kernels(engine::Precision::BF16);
  print_summary(a.common, "flashnerd info: " + cpu.summary(), j);
}

}  // namespace

void register_info(CLI::App& app) {
  add_command<InfoArgs>(app, "info", "CPU features found and the engine kernels chosen for this machine", run_info);
}

}  // namespace flashnerd::cli
