# shellcheck shell=bash
# The CartPole data recipe, sourced from the repository root by every script that trains or
# judges a model on CartPole data (scripts/demo.sh, experiments/models/ship.sh, precision,
# training_speed, ablation, own_states/compare.sh), so they all draw the same data:
#   sampler   the robot's own (robots/cartpole.json): no gen flags
#   training  trajectories of 100 steps from seed 1; how many is the script's (the demo's
#             CARTPOLE_TRAJECTORIES, the shipped model's 8000)
#   held out  512 trajectories of 220 steps from seed 2, long enough for H = 200 after the
#             model's history; judged at CARTPOLE_HORIZONS
# shellcheck disable=SC2034  # used by the scripts that source this file
CARTPOLE_TRAJECTORIES=4000
CARTPOLE_TEST=(--robot cartpole --trajectories 512 --steps 220 --seed 2)
CARTPOLE_HORIZONS=1,15,100,200

# cartpole_train N [SEED]: sets CARTPOLE_TRAIN to the gen arguments of N training
# trajectories (seed 1 when SEED is empty or left out)
cartpole_train() { CARTPOLE_TRAIN=(--robot cartpole --trajectories "$1" --steps 100 --seed "${2:-1}"); }
