#include "cli/option_fields.h"

namespace flashnerd::cli {

namespace {

// Every field a library error may name, with its flag. A new OptionError field gets its row
// here; tests/cli/no_flags_in_library_errors_cli.sh fails on a field without one.
constexpr OptionName kOptionFields[] = {
    // outputs and runs
    {"out", "--out"},
    {"overwrite", "--overwrite"},
    {"resume", "--resume"},
    {"allow_unsealed", "--allow-unsealed"},
    {"allow_other_mjcf", "--allow-other-mjcf"},
    {"threads", "--threads"},
    {"force_threads", "--force-threads"},
    {"seed", "--seed"},
    // robots and data generation
    {"robot_root_body", "--robot-body"},
    {"control_timestep", "--control-dt"},
    {"trajectories", "--trajectories"},
    {"steps", "--steps"},
    {"actuator_delay", "--actuator-delay"},
    // models and backends
    {"model", "--model"},
    {"backend", "--backend"},
    {"precision", "--precision"},
    {"envs", "--envs"},
    // planning
    {"samples", "--samples"},
    {"horizon", "--horizon"},
    {"knots", "--knots"},
    {"iterations", "--iterations"},
    {"first_iterations", "--first-iterations"},
    {"sigma0", "--sigma0"},
    {"horizon_diffuse_factor", "--horizon-diffuse-factor"},
    {"trajectory_diffuse_factor", "--trajectory-diffuse-factor"},
    {"temperature", "--temperature"},
    {"risk_penalty", "--risk-penalty"},
    {"action_scale", "--action-scale"},
    {"frames", "--frames"},
    // training
    {"updates", "--updates"},
    {"batch", "--batch"},
    {"lr", "--lr"},
    {"lr_warmup", "--lr-warmup"},
    {"valid_every", "--valid-every"},
    {"window", "--window"},
    {"dropout", "--dropout"},
    {"arch", "--arch"},
    {"preset", "--preset"},
    {"probes", "--probes"},
    {"variable_contacts", "--variable-contacts"},
    {"unroll", "--unroll"},
    {"unroll_ramp", "--unroll-ramp"},
    {"unroll_fraction", "--unroll-fraction"},
    {"unroll_gradient", "--unroll-grad"},
    {"unroll_decay", "--unroll-decay"},
    {"unroll_feedback", "--unroll-feedback"},
    {"input_noise", "--input-noise"},
    {"noise_fraction", "--noise-fraction"},
    {"fused_update", "--fused-update"},
    // PPO
    {"learning_rate", "--lr"},
    {"reward_scale", "--reward-scale"},
    {"steps_per_env", "--steps-per-env"},
    {"real.buffer_capacity", "--start-buffer"},
    {"refresh.max_windows", "--refresh-windows"},
};

}  // namespace

std::string option_flag(const std::string& field) { return option_name(kOptionFields, field); }

std::string flag_message(const OptionError& e) { return e.message(option_flag); }

}  // namespace flashnerd::cli
