"""The run engine: settings, the RMIT schedule, worktrees, the sandbox, processes and the driver loop."""
