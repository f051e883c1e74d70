"""Arbitrary bytes and arbitrarily nested documents fed to every reader (issue 14).

Whatever a file holds, each reader ends with exit 0, 1 or 2; on 2 with exactly one line on stderr; never
with a traceback; and in bounded time (a hang or a runaway shows up as a run far past the bound).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import usual_catalog
from tests.hostile.conftest import Ran, run_here

BOUND_SECONDS = 60.0
"""Far above any honest run of these tiny inputs; a hang or runaway loop would pass it."""


def _nested(depth: int, style: int) -> str:
    if style == 0:
        return "- " * depth + "x\n"
    if style == 1:
        return "a: " + "[" * depth + "]" * depth + "\n"
    if style == 2:
        return "".join(" " * i + "k:\n" for i in range(depth)) + " " * depth + "v\n"
    if style == 3:
        return '{"schema": "olm.package", "v": ' + "[" * depth + "]" * depth + "}\n"
    return "a: &a [x, x]\n" + "".join(
        f"a{i}: &a{i} [*{'a' if i == 0 else f'a{i - 1}'}, *{'a' if i == 0 else f'a{i - 1}'}]\n"
        for i in range(depth % 40)
    )


_texts = st.one_of(
    st.binary(max_size=600),
    st.builds(_nested, st.integers(min_value=1, max_value=3000), st.integers(min_value=0, max_value=4)).map(
        str.encode
    ),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
        max_leaves=20,
    ).map(lambda v: json.dumps({"schema": "olm.package", "name": "p", "v": v}).encode()),
)

READERS = ("streams", "inventory", "catalog-validate", "catalog-render", "bundle", "template", "bundles")


def _feed(root: Path, reader: str, data: bytes) -> Ran:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    if reader == "streams":
        (root / "streams").mkdir()
        (root / "streams" / "s.yaml").write_bytes(data)
        return run_here(["streams", "validate"], root)
    if reader == "inventory":
        (root / "streams" / "upstream").mkdir(parents=True)
        (root / "streams" / "upstream" / "kueue-0.1.yaml").write_bytes(data)
        return run_here(["streams", "validate"], root)
    if reader in ("catalog-validate", "catalog-render"):
        (root / "cat").mkdir()
        (root / "cat" / "catalog.json").write_text("".join(json.dumps(o) + "\n" for o in usual_catalog()))
        (root / "cat" / "x.yaml").write_bytes(data)
        return run_here(["catalog", "validate" if reader == "catalog-validate" else "render", "cat"], root)
    if reader == "bundle":
        (root / "b" / "manifests").mkdir(parents=True)
        (root / "b" / "metadata").mkdir()
        (root / "b" / "manifests" / "x.yaml").write_bytes(data)
        return run_here(["bundle", "validate", "b"], root)
    if reader == "template":
        (root / "t.yaml").write_bytes(data)
        return run_here(["catalog", "template", "t.yaml"], root)
    (root / "t.yaml").write_text("schema: olm.template.basic\nentries: []\n")
    (root / "bundles").mkdir()
    (root / "bundles" / "x.json").write_bytes(data)
    return run_here(["catalog", "template", "t.yaml", "--bundles", "bundles"], root)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_texts, reader=st.sampled_from(READERS))
def test_every_reader_ends_with_0_1_or_2_and_one_line(tmp_path: Path, data: bytes, reader: str) -> None:
    started = time.monotonic()
    ran = _feed(tmp_path / "case", reader, data)
    elapsed = time.monotonic() - started
    assert ran.code in (0, 1, 2), (reader, ran.code, ran.stderr[-500:])
    assert "Traceback" not in ran.stderr
    if ran.code == 2:
        assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert elapsed < BOUND_SECONDS, (reader, elapsed)
