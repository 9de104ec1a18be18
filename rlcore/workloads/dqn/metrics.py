"""The DQN's own metric keys (the lab's shared ones, such as the loss, are in rlcore.contract.reporting)."""

ENV_STEPS_PER_S = "throughput/env_steps_per_s"
EPSILON = "rollout/epsilon"
GAMES = "progress/games"
WIN_RATE = "eval/win_rate"
