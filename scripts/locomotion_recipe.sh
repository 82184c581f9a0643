# The quadruped's shared recipe (paper IV-B), sourced by the locomotion scripts so every run
# uses the same data and the same PPO settings.
# Data: i.i.d. joint-target offsets within +-0.75 rad around the default pose resampled every
# step (AR(1) with coefficient 0); the scripts add --robot quadruped --steps 100 --contacts off
# (fixed foot probes).
LOCOMOTION_COMMANDS=(--command-process ar1 --ar1-coefficient 0 --ar1-amplitude 0.75)
# PPO, every backend (docs/RL.md, "why the corrected robot still stands"): shaping terms ramped
# in over 300 iterations, feet air time off (it only penalizes the short swings of
# exploration); policy-eval applies the policy's recorded reward settings.
LOCOMOTION_PPO_FLAGS=(--penalty-ramp 300 --reward-scale feet_air_time=0)
