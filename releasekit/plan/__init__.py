"""Release planning. Pure: decides what to generate; writing is left to ``releasekit.io``."""
