"""Read Kueue's feature gates from ``pkg/features/kube_features.go`` (or the generated YAML list).

Adapter module (parses text handed to it; opens no files itself). Kueue <= 0.10 writes one flat
``map[featuregate.Feature]featuregate.FeatureSpec{Gate: {Default: ..., PreRelease: ...}}``; Kueue >= 0.11
a ``map[featuregate.Feature]featuregate.VersionedSpecs{Gate: {{Version: ..., ...}, ...}}`` whose LAST entry
applies (Kueue sets no emulation version, and the binary's 1.x is newer than every ``0.y`` entry). This is
not a Go parser: one pass blanks the comments (and the braces inside strings), then regular expressions
find each gate map, its ``Gate: {...}`` entries and their ``{Key: value, ...}`` specs, with lines for
errors. Gate names come from the ``Name featuregate.Feature = "Name"`` constants. From Kueue 0.15 on, upstream also
generates ``versioned_feature_list.yaml``: :func:`parse_versioned_feature_list` reads it.
"""

from __future__ import annotations

import bisect
import re

from releasekit.errors import UpstreamError
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.inventory import FeatureGate, GateStage

__all__ = ["GoFeaturesError", "parse_kube_features", "parse_versioned_feature_list"]


class GoFeaturesError(UpstreamError):
    """A gate file that cannot be understood (named with its line)."""


_NOISE = re.compile(r'//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?|"(?:[^"\\\n]|\\.)*"|`[^`]*`')
"""Comments and strings, left to right: blanked to spaces (lines and offsets kept) before the search."""
_CONST_RE = re.compile(r"\b([A-Za-z_]\w*)\s+(?:\w+\.)?Feature\s*=\s*\"([^\"\\]*)\"")
_MAP = re.compile(r"map\s*\[\s*(?:\w+\.)?Feature\s*\]\s*(?:\w+\.)?(FeatureSpec|VersionedSpecs)\s*\{")
_BODY = re.compile(r"(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}")
_ENTRY = re.compile(r'[\s,]*([\w.]+|"[^"\n]*")\s*:\s*(?:[\w.]+\s*)?\{((?:[^{}]|\{[^{}]*\})*)\}')
_SPEC = re.compile(r"\{([^{}]*)\}")
"""Linear by construction: each alternative starts with a character no other alternative of it can."""


def _blank(match: re.Match[str]) -> str:
    """A comment as blanks; a string as its quotes around blanks (names are read from the text itself)."""
    token = match.group()
    inner = re.sub(r"[^\n]", " ", token[1:-1])
    return f" {inner} " if token.startswith("/") else f"{token[0]}{inner}{token[-1]}"


def _gate_name(expr: str, constants: dict[str, str]) -> str:
    if expr.startswith('"'):
        return expr[1:-1]
    ident = expr.rsplit(".", 1)[-1]
    return constants.get(ident, ident)


def _spec(body: str, at: str, gate: str) -> FeatureGate:
    fields: dict[str, str] = {}
    for part in body.split(","):
        key, colon, value = part.partition(":")
        if not part.strip():
            continue
        if not colon or not key.strip().isidentifier():
            raise GoFeaturesError(
                f"{at}: gate {gate!r}: expected keyed fields (Default: ..., PreRelease: ...)"
            )
        fields[key.strip()] = value.strip()
    unknown = sorted(set(fields) - {"Default", "PreRelease", "LockToDefault", "Version"})
    if unknown:
        raise GoFeaturesError(f"{at}: gate {gate!r}: unknown field(s) {', '.join(unknown)}")
    if "Default" not in fields or "PreRelease" not in fields:
        raise GoFeaturesError(f"{at}: gate {gate!r}: Default and PreRelease are required")
    try:
        stage = GateStage(fields["PreRelease"].rsplit(".", 1)[-1])
    except ValueError:
        raise GoFeaturesError(f"{at}: gate {gate!r}: unknown PreRelease {fields['PreRelease']!r}") from None
    flags = {name: fields.get(name, "false") for name in ("Default", "LockToDefault")}
    for name, expr in flags.items():
        if expr not in ("true", "false"):
            raise GoFeaturesError(f"{at}: {name} must be true or false, not {expr!r}")
    return FeatureGate(
        name=gate,
        stage=stage,
        default=flags["Default"] == "true",
        lock_to_default=flags["LockToDefault"] == "true",
    )


def parse_kube_features(text: str, *, source: str = "kube_features.go") -> tuple[FeatureGate, ...]:
    """Parse the gate maps of a ``kube_features.go`` (either format); return the gates sorted by name.

    Raises:
        GoFeaturesError: no gate map, a malformed literal, a gate declared twice (with both lines).
    """
    code = _NOISE.sub(_blank, text)
    newlines = [m.start() for m in re.finditer("\n", code)]

    def at(pos: int) -> str:
        return f"{source}:{bisect.bisect(newlines, pos) + 1}"

    constants = {m.group(1): text[m.start(2) : m.end(2)] for m in _CONST_RE.finditer(code)}
    gates: dict[str, tuple[FeatureGate, str]] = {}
    maps = list(_MAP.finditer(code))
    for found in maps:
        flat = found.group(1) == "FeatureSpec"
        body = _BODY.match(code, found.end())
        if body is None:
            raise GoFeaturesError(f"{at(found.end())}: unclosed '{{' (or literals nested too deep)")
        pos, end = found.end(), body.end() - 1
        while entry := _ENTRY.match(code, pos, end):
            name = _gate_name(text[entry.start(1) : entry.end(1)], constants)
            where, inner, pos = at(entry.start(1)), entry.group(2), entry.end()
            specs = [inner] if flat else _SPEC.findall(inner)
            if not specs or (not flat and _SPEC.sub("", inner).strip(" \t\n,")):
                raise GoFeaturesError(f"{where}: gate {name!r}: expected a list of versioned specs")
            if name in gates:
                raise GoFeaturesError(f"{where}: gate {name!r} is declared twice (first at {gates[name][1]})")
            gates[name] = (_spec(specs[-1], where, name), where)
        if code[pos:end].strip(" \t\n,"):
            raise GoFeaturesError(f"{at(pos)}: expected 'Gate: {{...}}' entries in the gate map")
    if not maps:
        raise GoFeaturesError(
            f"{source}: no map[featuregate.Feature]featuregate.FeatureSpec or VersionedSpecs literal found"
        )
    return tuple(gates[name][0] for name in sorted(gates))


def parse_versioned_feature_list(
    text: str, *, source: str = "versioned_feature_list.yaml"
) -> tuple[FeatureGate, ...]:
    """Parse upstream's generated gate list (the last ``versionedSpecs`` entry applies).

    Raises:
        GoFeaturesError: the text is not a list of ``{name, versionedSpecs}`` entries.
    """
    try:
        docs = load_yaml_documents(text, track_paths=False)
    except YamlContentError as exc:
        raise GoFeaturesError(f"{source}:{exc.line}: {exc.message}") from None
    data = docs[0].data if docs else None
    if not isinstance(data, list):
        raise GoFeaturesError(f"{source}: expected a list of gates")
    gates: dict[str, FeatureGate] = {}
    for index, entry in enumerate(data):
        try:
            name = str(entry["name"])
            last = entry["versionedSpecs"][-1]
            stage = GateStage(str(last["preRelease"]))
            default, lock = last["default"], last.get("lockToDefault", False)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise GoFeaturesError(f"{source}: entry {index}: missing or bad field ({exc})") from None
        if not isinstance(default, bool) or not isinstance(lock, bool):
            raise GoFeaturesError(f"{source}: gate {name!r}: default and lockToDefault must be booleans")
        if name in gates:
            raise GoFeaturesError(f"{source}: gate {name!r} is listed twice")
        gates[name] = FeatureGate(name=name, stage=stage, default=default, lock_to_default=lock)
    return tuple(gates[n] for n in sorted(gates))
