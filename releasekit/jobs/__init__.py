"""Use cases: each module tells one command's whole story, calling the adapters (io), the planner and the rules."""
