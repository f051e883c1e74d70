"""Use cases: each module tells one command's whole story (reading, judging, writing) on top of io/, rules/ and plan/."""
