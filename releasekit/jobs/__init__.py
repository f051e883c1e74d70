"""Use cases: one module per command's whole story (read with io, decide with plan and rules, write with io)."""
