"""A release's operator facts, as ``releasekit operator import`` records them in ``streams/operator/``.

Pure core: text and parsed documents in, the record document out. The record keeps every fact of the
operator repository's bundle sources but the prose ``bundle-templates/`` supplies. Where the repository
keeps ``:latest`` placeholders that ``bundle.Dockerfile`` replaces at image build time (1.2.0 on),
:func:`substitute_related_images` does the same, so the record holds the images as published.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from releasekit.model import jsontext

__all__ = [
    "CSV_PROSE_ANNOTATIONS",
    "CSV_PROSE_SPEC",
    "DOCKERFILE_PROSE_LABELS",
    "MAX_SUBSTITUTION_STEPS",
    "RECORD_SCHEMA",
    "dockerfile_labels",
    "make_record",
    "strip_crd_descriptions",
    "strip_csv_prose",
    "substitute_related_images",
]

RECORD_SCHEMA = "releasekit/operator-record/v1"
CSV_PROSE_SPEC = ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider")
CSV_PROSE_ANNOTATIONS = ("description", "alm-examples")
OWNED_CRD_FACTS = ("name", "version", "kind")
DOCKERFILE_PROSE_LABELS = ("io.k8s.description", "description", "summary", "io.k8s.display-name")

MAX_SUBSTITUTION_STEPS = 64
"""Most ``related_images.json`` substitutions one ``bundle.Dockerfile`` may ask for (the real ones: three)."""

# The readers below take time linear in their input by construction: no regular expression (one that
# retries from every position of a long identifier run is quadratic) and no shlex (which grows each word
# one character at a time); every scan moves forward, and text is joined once.
_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT = _IDENT_START | frozenset("0123456789")
_STEP_START = "=$(jq -r '.[] | select(.name == \""
_STEP_IMAGE = "\") | .image' "
_STEP_SED = 'sed -i "s|${'
_SHELL_SPACE = frozenset(" \t\r\n")
_QUOTED = 60
"""How much of a line a refusal quotes."""


def _quoted(text: str) -> str:
    """``text`` quoted (``repr``: control characters escaped), its first :data:`_QUOTED` characters only."""
    return repr(text) if len(text) <= _QUOTED else f"{text[:_QUOTED]!r}... ({len(text):,} characters)"


def _identifier_end(text: str, start: int) -> int:
    """Where the shell variable name that starts at ``start`` ends (``start``: none starts there)."""
    if start >= len(text) or text[start] not in _IDENT_START:
        return start
    end = start + 1
    while end < len(text) and text[end] in _IDENT:
        end += 1
    return end


def _space_end(text: str, start: int) -> int:
    while start < len(text) and text[start].isspace():
        start += 1
    return start


def _trailing_identifier(text: str) -> str:
    """The shell variable name ``text`` ends with ("" when none): its trailing word, leading digits left out."""
    start = len(text)
    while start > 0 and text[start - 1] in _IDENT:
        start -= 1
    while start < len(text) and text[start] not in _IDENT_START:
        start += 1
    return text[start:]


def _step(var: str, after: str) -> tuple[str, str] | None:
    """``(name, ORIG)`` when ``after`` goes on as an image substitution step does, else None."""
    quote = after.find('"')
    if quote <= 0 or not after.startswith(_STEP_IMAGE, quote):
        return None
    close = after.find(")", quote + len(_STEP_IMAGE))
    if close < 0:
        return None
    pos = _space_end(after, close + 1)
    if not after.startswith("&&", pos):
        return None
    pos = _space_end(after, pos + 2)
    if not after.startswith(_STEP_SED, pos):
        return None
    pos += len(_STEP_SED)
    end = _identifier_end(after, pos)
    if end == pos or not after.startswith("}.*|${" + var + '}|g"', end):
        return None
    return after[:quote], after[pos:end]


def _substitution_steps(dockerfile: str) -> list[tuple[str, str]]:
    """The ``(name, ORIG)`` of every image substitution step of ``dockerfile``, in file order."""
    pieces = dockerfile.split(_STEP_START)
    steps = []
    for before, after in zip(pieces, pieces[1:], strict=False):
        var = _trailing_identifier(before)
        found = _step(var, after) if var else None
        if found is not None:
            steps.append(found)
    return steps


def _arg_default(line: str) -> tuple[str, str] | None:
    """``(name, value)`` of an ``ARG NAME=VALUE`` line (one word of value), else None."""
    text = line.strip()
    if not text.startswith("ARG") or len(text) < 4 or not text[3].isspace():
        return None
    rest = text[3:].lstrip()
    end = _identifier_end(rest, 0)
    if end == 0 or not rest.startswith("=", end):
        return None
    value = rest[end + 1 :]
    words = value.split(None, 1)
    return (rest[:end], value) if len(words) == 1 and words[0] == value else None


def _replace_rest_of_lines(text: str, original: str, image: str, max_chars: int | None) -> str:
    """``sed "s|ORIGINAL.*|IMAGE|g"`` with ``original`` taken literally.

    Raises:
        ValueError: the result would be longer than ``max_chars``.
    """
    out: list[str] = []
    size = -1
    for line in text.split("\n"):
        at = line.find(original)
        if at >= 0:
            line = line[:at] + image
        size += len(line) + 1
        if max_chars is not None and size > max_chars:
            raise ValueError(
                f"substituting {_quoted(image)} makes the CSV longer than {max_chars:,} characters"
            )
        out.append(line)
    return "\n".join(out)


def _related_images(text: str) -> dict[str, str]:
    try:
        items = jsontext.loads(text)
        if not isinstance(items, list):
            raise TypeError(f"a JSON {type(items).__name__}, not a list")
        return {str(i["name"]): str(i["image"]) for i in items}
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"related_images.json is not a list of {{name, image}}: {exc}") from None


def substitute_related_images(
    csv_text: str, dockerfile: str | None, related_images: str | None, *, max_chars: int | None = None
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The CSV text as the image build leaves it, and the (placeholder, image) pairs applied.

    Follows the ``RUN X=$(jq -r '.[] | select(.name == "N") | .image' FILE) && sed -i "s|${ORIG}.*|${X}|g"``
    lines of ``bundle.Dockerfile``: each ``ARG ORIG=`` value and the rest of its line become image ``N`` of
    ``related_images.json``. Without such lines or the JSON file nothing changes.

    Raises:
        ValueError: ``related_images.json`` is not a list of ``{name, image}`` or lacks a selected name; too
            many steps; the CSV would grow past ``max_chars``.
    """
    if not dockerfile or related_images is None:
        return csv_text, ()
    steps = _substitution_steps(dockerfile)
    if not steps:
        return csv_text, ()
    if len(steps) > MAX_SUBSTITUTION_STEPS:
        raise ValueError(
            f"bundle.Dockerfile substitutes {len(steps):,} images; at most {MAX_SUBSTITUTION_STEPS} are read"
        )
    args = dict(found for found in map(_arg_default, dockerfile.splitlines()) if found is not None)
    images = _related_images(related_images)
    applied: list[tuple[str, str]] = []
    for name, orig in steps:
        original = args.get(orig)
        if original is None:
            raise ValueError(f"bundle.Dockerfile uses ${{{orig}}} without an ARG default")
        if name not in images:
            raise ValueError(f"related_images.json has no image named {_quoted(name)}")
        image = images[name]
        csv_text = _replace_rest_of_lines(csv_text, original, image, max_chars)
        applied.append((original, image))
    return csv_text, tuple(applied)


def _shell_words(text: str) -> list[str]:
    r"""``text`` split into words as a POSIX shell (and ``shlex.split``) does.

    Raises:
        ValueError: an unclosed quote, or a backslash at the end.
    """
    words: list[str] = []
    word: list[str] = []
    started = False
    pos, size = 0, len(text)
    while pos < size:
        char = text[pos]
        if char in _SHELL_SPACE:
            if started:
                words.append("".join(word))
                word, started = [], False
            pos += 1
            continue
        started = True
        if char == "'":
            close = text.find("'", pos + 1)
            if close < 0:
                raise ValueError("No closing quotation")
            word.append(text[pos + 1 : close])
            pos = close + 1
        elif char == '"':
            pos = _double_quoted(text, pos + 1, word)
        elif char == "\\":
            if pos + 1 >= size:
                raise ValueError("No escaped character")
            word.append(text[pos + 1])
            pos += 2
        else:
            word.append(char)
            pos += 1
    if started:
        words.append("".join(word))
    return words


def _double_quoted(text: str, pos: int, word: list[str]) -> int:
    """Add the double-quoted text that starts at ``pos`` to ``word``; return where it ends (after ``"``)."""
    size = len(text)
    while pos < size:
        char = text[pos]
        if char == '"':
            return pos + 1
        if char == "\\":
            if pos + 1 >= size:
                raise ValueError("No escaped character")
            following = text[pos + 1]
            word.append(following if following in '"\\' else char + following)
            pos += 2
        else:
            word.append(char)
            pos += 1
    raise ValueError("No closing quotation")


def _logical_lines(text: str) -> list[str]:
    r"""The lines of ``text`` with continuation lines (a trailing ``\``) joined, each by one space."""
    logical: list[str] = []
    pending: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            pending.append(line[:-1] + " ")
            continue
        pending.append(line)
        logical.append("".join(pending))
        pending = []
    if pending:
        logical.append("".join(pending))
    return logical


def dockerfile_labels(text: str) -> list[tuple[str, str]]:
    """The LABEL key/value pairs of the Dockerfile's last stage, in file order (continuation lines joined).

    Raises:
        ValueError: a LABEL line that cannot be split into ``key=value`` pairs.
    """
    labels: list[tuple[str, str]] = []
    for line in _logical_lines(text):
        stripped = line.strip()
        first = stripped.split(None, 1)
        word = first[0].upper() if first else ""
        if word == "FROM":
            labels = []
        elif word == "LABEL":
            try:
                parts = _shell_words(first[1] if " " in stripped else "")
            except ValueError as exc:
                raise ValueError(f"cannot read {_quoted(stripped)}: {exc}") from None
            for part in parts:
                key, sep, value = part.partition("=")
                if not sep or not key:
                    raise ValueError(f"cannot read {_quoted(stripped)}: {_quoted(part)} is not key=value")
                labels.append((key, value))
    return labels


def _strip_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            continue
        if key in ("properties", "patternProperties", "definitions") and isinstance(value, dict):
            out[key] = {name: _strip_schema(sub) for name, sub in value.items()}
        else:
            out[key] = _strip_schema(value)
    return out


def strip_crd_descriptions(crd: Mapping[str, Any]) -> dict[str, Any]:
    """A CRD without the ``description`` texts of its schemas (a property named ``description`` stays)."""
    out = copy.deepcopy(dict(crd))
    spec = out.get("spec")
    if not isinstance(spec, dict):
        return out
    versions = spec.get("versions")
    for version in versions if isinstance(versions, list) else []:
        if isinstance(version, dict) and isinstance(version.get("schema"), dict):
            version["schema"] = _strip_schema(version["schema"])
    if isinstance(spec.get("validation"), dict):
        spec["validation"] = _strip_schema(spec["validation"])
    return out


def strip_csv_prose(csv: Mapping[str, Any]) -> dict[str, Any]:
    """The CSV without the prose list (see the module docstring); any shape is taken."""
    out = copy.deepcopy(dict(csv))
    metadata = out.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        for key in CSV_PROSE_ANNOTATIONS:
            annotations.pop(key, None)
    spec = out.get("spec")
    if isinstance(spec, dict):
        for key in CSV_PROSE_SPEC:
            spec.pop(key, None)
        crds = spec.get("customresourcedefinitions")
        if isinstance(crds, dict) and isinstance(crds.get("owned"), list):
            crds["owned"] = [
                {k: c[k] for k in OWNED_CRD_FACTS if k in c} if isinstance(c, dict) else c
                for c in crds["owned"]
            ]
    return out


def make_record(
    *,
    version: str,
    commit: str,
    csv_file: str,
    csv: Mapping[str, Any],
    manifests: Iterable[tuple[str, Mapping[str, Any]]],
    annotations: Mapping[str, Any],
    labels: Iterable[tuple[str, str]] | None,
    substituted: Iterable[tuple[str, str]],
    csv_version: str | None = None,
) -> dict[str, Any]:
    """The record document (``releasekit/schemas/operator-record.schema.json``)."""
    others = []
    for file, obj in manifests:
        data = strip_crd_descriptions(obj) if obj.get("kind") == "CustomResourceDefinition" else dict(obj)
        others.append({"file": file, "object": data})
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "version": version,
        "source": {
            "commit": commit,
            "relatedImagesSubstituted": [{"placeholder": p, "image": i} for p, i in substituted],
            **({"csvVersion": csv_version} if csv_version is not None else {}),
        },
        "csvFile": csv_file,
        "csv": strip_csv_prose(csv),
        "manifests": others,
        "annotations": dict(annotations),
    }
    if labels is not None:
        record["dockerfileLabels"] = [
            {"name": k, "value": v} for k, v in labels if k not in DOCKERFILE_PROSE_LABELS
        ]
    return record
