# The quadruped's dynamics-data recipe (paper IV-B), sourced by scripts/locomotion.sh and
# scripts/locomotion_shift.sh so both generate the same kind of data: i.i.d. joint-target
# offsets within +-0.75 rad around the default pose resampled every step (AR(1) with
# coefficient 0); the scripts add --robot quadruped --steps 100 --contacts off (fixed foot probes).
LOCOMOTION_COMMANDS=(--command-process ar1 --ar1-coefficient 0 --ar1-amplitude 0.75)
