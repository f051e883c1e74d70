"""``python -m releasekit`` entry point."""

from releasekit.cli import main

if __name__ == "__main__":
    main()
