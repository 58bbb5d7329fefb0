set -e
for s in 20261241 20261242; do
  five-towers train --config configs/ppo_selfplay_2p.yaml --no-progress --set name=tts_fast_$s seed=$s total_timesteps=600000 checkpoint_every=100000 final_eval_games=0 out_dir=runs/time_to_strength_fast
done
for s in 20261241 20261242; do
  python training/checkpoint_curve.py runs/time_to_strength_fast/tts_fast_$s --opponents heuristic --games 1000 --seed 20261243 --until 0.55 --workers 2 --out results/time_to_strength_fast/scan_$s
done
echo DONE
five-towers evaluate --agents ppo:path=results/time_to_strength_fast/scan_20261242/policy_at_goal.npz heuristic --games 1000 --seed 20261244 --workers 2 --out results/time_to_strength_fast/confirm_20261242 --no-progress
