"""``releasekit check`` on one changed package of a 300-package catalog, against a full ``catalog validate``.

Run by hand, never in the test suite::

    .venv/bin/python benchmarks/check_bench.py [-n 5] [--packages 299] [--keep DIR]

Builds a temporary git repository: the repository's ``streams/``, ``bundle-templates/`` and ``catalog/``,
plus ``--packages`` synthetic packages (``benchmarks/gen_synthetic.py``, 30 bundles each, about 33 MB of
JSON) in the v4.18 fragment -- 300 packages with kueue-operator. The base commit holds that; the working
tree then adds a release 1.4.2 to ``streams/stable.yaml`` and writes the kueue-operator catalogs it
generates (a proper release: the check passes). Timed, as whole processes (one warm-up, then ``-n`` runs,
median / min / max wall time):

- ``releasekit check --repo R --base base`` (head = the working tree): loads and checks only the
  kueue-operator catalogs, compares the 299 others by git blob id;
- ``releasekit catalog validate R/catalog/v4.18/configs``: the full v4.18 catalog, every package.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO_ROOT))

from gen_synthetic import generate  # noqa: E402

from releasekit.jobs.catalog_build import build_catalogs  # noqa: E402

DIGEST = "sha256:" + "4" * 64
NEW_RELEASE = f"""\
  - version: 1.4.2
    status: released
    upstream:
      line: "0.18"
      describe: v0.18.6
      tag: v0.18.6
      inventory: kueue-0.18
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@{DIGEST}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@{DIGEST}
      operand: registry.redhat.io/kueue/kueue-rhel9@{DIGEST}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@{DIGEST}
    createdAt: "2026-09-01T10:00:00Z"
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def make_repo(root: Path, packages: int) -> None:
    """The base commit (repository data + synthetic packages in v4.18) and the changed working tree."""
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "synthetic", packages=packages)
        for package in sorted((Path(tmp) / "synthetic").iterdir()):
            shutil.copytree(package, root / "catalog" / "v4.18" / "configs" / package.name)
    _git(root, "init", "-q", "-b", "base")
    _git(root, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", ".")
    _git(
        root, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "base"
    )
    stable = root / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + NEW_RELEASE)
    built = build_catalogs(root / "streams", root / "bundle-templates")
    for rel, data in built.files.items():
        if "kueue-operator" in rel.parts:
            (root / "catalog" / rel).write_bytes(data)


def timed(argv: list[str], runs: int) -> tuple[list[float], int]:
    """Wall times of ``runs`` runs after one warm-up, and the last exit code."""
    subprocess.run(argv, capture_output=True, check=False)
    times = []
    code = 0
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        code = done.returncode
    return times, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="counted runs per command (default 5)")
    parser.add_argument("--packages", type=int, default=299, help="synthetic packages besides kueue-operator")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    releasekit = str(Path(sys.executable).with_name("releasekit"))
    with tempfile.TemporaryDirectory(prefix="releasekit-check-bench-") as tmp:
        root = args.keep or Path(tmp) / "repo"
        root.mkdir(parents=True, exist_ok=True)
        make_repo(root, args.packages)
        size = sum(p.stat().st_size for p in (root / "catalog").rglob("*.json"))
        print(
            f"repository: {args.packages + 1} packages in v4.18, {size / 1e6:.1f} MB of catalog JSON in all"
        )
        rows = [
            ("check (1 package changed)", [releasekit, "check", "--repo", str(root), "--base", "base"]),
            (
                "catalog validate v4.18 (full)",
                [releasekit, "catalog", "validate", str(root / "catalog" / "v4.18" / "configs")],
            ),
        ]
        print(f"{'command':34} {'median':>8} {'min':>8} {'max':>8}  exit")
        for label, argv in rows:
            times, code = timed(argv, args.n)
            print(
                f"{label:34} {statistics.median(times):7.2f}s {min(times):7.2f}s {max(times):7.2f}s  {code}"
            )


if __name__ == "__main__":
    main()
