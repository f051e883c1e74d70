"""Time whole ``releasekit`` commands on the benchmark catalogs (run by hand, never in tests).

First the commands on this repository itself (``--help``, ``catalog build --check``, ``build --check``,
``build``), then, for each catalog (the synthetic one, and the real YAML catalogs under ``--shared``) and each command
(``catalog validate``, ``catalog render``, and ``load``: the loader alone through ``python -c``), it runs
the command N times as a separate process and prints the median, minimum and maximum wall time and the
peak RSS of the process (from ``os.wait4``'s resource usage, the figure ``/usr/bin/time -v`` prints as
"Maximum resident set size"). Wall time includes Python's start-up. A command whose module is not
there yet is reported as "not available". releasekit runs in one process (the forked helper of earlier
versions is gone), so its peak is the command's.
releasekit's bytecode is written first (``--no-compile`` to skip), as an installed package has it.

Usage::

    python benchmarks/gen_synthetic.py             # once: writes benchmarks/data/synthetic
    python benchmarks/run.py [-n 5] [--shared ../shared/fixtures/real-catalogs] [--only synthetic]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SYNTHETIC = HERE / "data" / "synthetic"

# Commands on this repository itself (run in the repository root): start-up and the release job.
# ``build`` writes catalog/ (the same bytes). Every run renders and validates from scratch: releasekit
# keeps nothing between runs (the result cache of earlier versions is gone).
# (name, argv after ``python -m releasekit``, target s)
REPO_COMMANDS: list[tuple[str, list[str], float]] = [
    ("--help", ["--help"], 0.06),
    ("catalog build --check", ["catalog", "build", "--check", "-q"], 0.1),
    ("build --check", ["build", "--check", "-q"], 0.6),
    ("build", ["build", "-q"], 0.6),
]

# (name, folder below --shared or None for the synthetic catalog, validate target s, MiB)
CATALOGS = [
    ("synthetic", None, 0.6, 130),
    ("community v4.20", "community-operators-prod/v4.20", 0.70, 90),
    ("community v4.16", "community-operators-prod/v4.16", None, None),
    ("certified v4.14", "certified-operators/v4.14", 2.1, 310),
]

LOAD_SNIPPET = (
    "import sys; from pathlib import Path; from releasekit.io.fbc_load import load_catalog; "
    "r = load_catalog(Path(sys.argv[1])); sys.exit(1 if r.findings else 0)"
)


@dataclass
class Figures:
    walls: list[float]
    peak_mib: float
    codes: set[int]


def _commands(folder: Path) -> dict[str, list[str] | None]:
    releasekit = [sys.executable, "-m", "releasekit"]

    def available(module: str) -> bool:
        return importlib.util.find_spec(module) is not None

    return {
        "load": [sys.executable, "-c", LOAD_SNIPPET, str(folder)],
        "validate": releasekit + ["catalog", "validate", str(folder)]
        if available("releasekit.jobs.catalog_validate")
        else None,
        "render": releasekit + ["catalog", "render", str(folder), "-o", "json"]
        if available("releasekit.jobs.catalog_render")
        else None,
    }


def _run_once(argv: list[str]) -> tuple[float, float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def measure(argv: list[str], runs: int, warmup: int = 1) -> Figures:
    """Run ``argv`` ``warmup`` + ``runs`` times; keep the counted runs' wall times and the peak RSS."""
    for _ in range(warmup):
        _run_once(argv)
    walls: list[float] = []
    peak = 0.0
    codes: set[int] = set()
    for _ in range(runs):
        wall, rss, code = _run_once(argv)
        walls.append(wall)
        peak = max(peak, rss)
        codes.add(code)
    return Figures(walls, peak, codes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=5, help="counted runs per command (default 5)")
    parser.add_argument(
        "--shared",
        type=Path,
        default=REPO.parent / "shared" / "fixtures" / "real-catalogs",
        help="folder holding community-operators-prod/ and certified-operators/",
    )
    parser.add_argument("--synthetic", type=Path, default=SYNTHETIC, help="synthetic catalog folder")
    parser.add_argument(
        "--only",
        action="append",
        help="catalog name to run (repeatable), e.g. synthetic; 'repo' for the commands on this repository",
    )
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="do not write releasekit's bytecode first (with PYTHONDONTWRITEBYTECODE=1 every run then "
        "compiles the package's source, about 60 ms, which an installed package never does)",
    )
    args = parser.parse_args()
    if not args.no_compile:
        compileall.compile_dir(REPO / "releasekit", quiet=1)

    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs; {args.runs} runs after 1 warm-up")
    header = (
        f"{'catalog':<17} {'command':<9} {'median s':>9} {'min s':>7} {'max s':>7} {'peak MiB':>9}  target"
    )
    print(header)
    print("-" * len(header))
    for label, argv, target_s in REPO_COMMANDS:
        if args.only and "repo" not in args.only:
            break
        fig = measure([sys.executable, "-m", "releasekit", *argv], args.runs)
        codes = "" if fig.codes <= {0} else f"  exit {sorted(fig.codes)}"
        print(
            f"{'repo: ' + label:<33} {statistics.median(fig.walls):>9.3f} {min(fig.walls):>7.3f} "
            f"{max(fig.walls):>7.3f} {fig.peak_mib:>9.0f}  {target_s} s{codes}",
            flush=True,
        )
    for name, rel, target_s, target_mib in CATALOGS:
        if args.only and name not in args.only:
            continue
        folder = args.synthetic if rel is None else args.shared / rel
        if not folder.is_dir():
            hint = " (run benchmarks/gen_synthetic.py)" if rel is None else ""
            print(f"{name:<17} {'-':<9} catalog not found at {folder}{hint}")
            continue
        for command, argv in _commands(folder).items():
            if argv is None:
                print(f"{name:<17} {command:<9} not available")
                continue
            fig = measure(argv, args.runs)
            target = f"{target_s} s / {target_mib} MiB" if command == "validate" and target_s else ""
            codes = "" if fig.codes <= {0} else f"  exit {sorted(fig.codes)}"
            print(
                f"{name:<17} {command:<9} {statistics.median(fig.walls):>9.3f} {min(fig.walls):>7.3f} "
                f"{max(fig.walls):>7.3f} {fig.peak_mib:>9.0f}  {target}{codes}",
                flush=True,
            )


if __name__ == "__main__":
    main()
