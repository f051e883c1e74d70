"""Use cases: each module is one command's whole story (read, plan, judge, write), called by a thin cli module."""
