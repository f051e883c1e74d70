"""Read Kueue's feature gates from ``pkg/features/kube_features.go`` (or the generated YAML list).

Adapter module (parses text handed to it; opens no files itself). Kueue <= 0.10 writes one flat
``map[featuregate.Feature]featuregate.FeatureSpec{Gate: {Default: ..., PreRelease: ...}}``; Kueue >= 0.11
a ``map[featuregate.Feature]featuregate.VersionedSpecs{Gate: {{Version: ..., ...}, ...}}`` whose LAST entry
applies (Kueue sets no emulation version, and the binary's 1.x is newer than every ``0.y`` entry). This is
not a Go parser: one regular expression splits the text into tokens (strings and comments whole, so braces
in them do not count), and a small reader takes composite literals apart, with lines for errors. Gate
names come from the ``Name featuregate.Feature = "Name"`` constants. From Kueue 0.15 on, upstream also
generates ``versioned_feature_list.yaml``: :func:`parse_versioned_feature_list` reads it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from releasekit.errors import UpstreamError
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.inventory import FeatureGate, GateStage

__all__ = [
    "FeatureFileFormat",
    "GoFeaturesError",
    "parse_kube_features",
    "parse_versioned_feature_list",
]


class GoFeaturesError(UpstreamError):
    """A gate file that cannot be understood (named with its line)."""


class FeatureFileFormat(enum.StrEnum):
    """The Go gate formats (see the module docstring)."""

    FLAT = "flat"
    VERSIONED = "versioned"


_TOKEN = re.compile(
    r"\"(?:[^\"\\\n]|\\.)*\"?|`[^`]*`?|'(?:[^'\\\n]|\\.)*'?"  # strings (an unclosed one ends the line)
    r"|//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?"  # comments (an unclosed one ends the text)
    r"|[{}()\[\],:]|[^\s{}()\[\],:\"'`/]+|/|\s+",
    re.S,
)
"""Linear by construction: every alternative consumes what no other alternative of it could."""
_CONST_RE = re.compile(r"\b([A-Za-z_]\w*)\s+(?:\w+\.)?Feature\s*=\s*\"([^\"\\]*)\"")
_SPEC_TYPES = {"FeatureSpec": FeatureFileFormat.FLAT, "VersionedSpecs": FeatureFileFormat.VERSIONED}


@dataclass(frozen=True, slots=True)
class _Composite:
    elements: tuple[tuple[str | None, _Composite | str], ...]
    line: int


class _Reader:
    """Composite literals over the tokens (text, line) of a Go file without comments and blanks."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.tokens: list[tuple[str, int]] = []
        line = 1
        for match in _TOKEN.finditer(text):
            token = match.group()
            if not token.isspace() and not token.startswith(("//", "/*")):
                self.tokens.append((token, line))
            line += token.count("\n")

    def fail(self, index: int, message: str) -> GoFeaturesError:
        line = self.tokens[min(index, len(self.tokens) - 1)][1] if self.tokens else 1
        return GoFeaturesError(f"{self.source}:{line}: {message}")

    def text(self, index: int) -> str:
        return self.tokens[index][0] if index < len(self.tokens) else ""

    def composite(self, i: int) -> tuple[_Composite, int]:
        """Parse ``{ elem, key: elem, }`` starting at the token ``{``."""
        start, i = i, i + 1
        elements: list[tuple[str | None, _Composite | str]] = []
        while self.text(i) != "}":
            if i >= len(self.tokens):
                raise self.fail(start, "unclosed '{'")
            first, i = self.value(i)
            if self.text(i) == ":":
                if not isinstance(first, str):
                    raise self.fail(i, "a composite literal cannot be a key")
                value, i = self.value(i + 1)
                elements.append((first, value))
            else:
                elements.append((None, first))
            if self.text(i) == ",":
                i += 1
            elif self.text(i) != "}":
                raise self.fail(i, "expected ',' or '}' in a composite literal")
        return _Composite(tuple(elements), self.tokens[start][1]), i + 1

    def value(self, i: int) -> tuple[_Composite | str, int]:
        """An expression up to a top-level ``,``/``:``/``}``, or a (possibly typed) composite literal."""
        start, depth = i, 0
        while i < len(self.tokens):
            token = self.text(i)
            if depth == 0 and token == "{":  # a literal, or a typed one: featuregate.FeatureSpec{...}
                return self.composite(i)
            if depth == 0 and token in (",", ":", "}"):
                break
            depth += (token in ("(", "[")) - (token in (")", "]"))
            i += 1
        if i == start:
            raise self.fail(start, "expected a value")
        return " ".join(token for token, _ in self.tokens[start:i]), i


def _gate_name(expr: str, constants: dict[str, str]) -> str:
    if len(expr) >= 2 and expr[0] == expr[-1] and expr[0] in '"`':
        return expr[1:-1]
    ident = expr.rsplit(".", 1)[-1]
    return constants.get(ident, ident)


def _spec(comp: _Composite, source: str, gate: str) -> FeatureGate:
    at = f"{source}:{comp.line}"
    if any(key is None or not isinstance(value, str) for key, value in comp.elements):
        raise GoFeaturesError(f"{at}: gate {gate!r}: expected keyed fields (Default: ..., PreRelease: ...)")
    fields = {str(key): str(value) for key, value in comp.elements}
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


def parse_kube_features(
    text: str, *, source: str = "kube_features.go"
) -> tuple[FeatureFileFormat, tuple[FeatureGate, ...]]:
    """Parse the gate maps of a ``kube_features.go``; return its format and the gates sorted by name.

    Raises:
        GoFeaturesError: no gate map, a malformed literal, a gate declared twice (with both lines).
    """
    reader = _Reader(text, source)
    words = [token for token, _ in reader.tokens]
    constants = {m.group(1): m.group(2) for m in _CONST_RE.finditer(" ".join(words))}
    gates: dict[str, tuple[FeatureGate, int]] = {}
    formats: set[FeatureFileFormat] = set()
    for i, word in enumerate(words[:-5]):  # map [ featuregate.Feature ] featuregate.FeatureSpec {
        shape = [w.rsplit(".", 1)[-1] for w in words[i + 1 : i + 6]] if word == "map" else []
        fmt = _SPEC_TYPES.get(shape[3]) if shape[:3] == ["[", "Feature", "]"] and shape[4] == "{" else None
        if fmt is None:
            continue
        formats.add(fmt)
        body, _ = reader.composite(i + 5)
        for key, value in body.elements:
            if key is None or not isinstance(value, _Composite):
                raise GoFeaturesError(
                    f"{source}:{body.line}: expected 'Gate: {{...}}' entries in the gate map"
                )
            name = _gate_name(key, constants)
            specs = [s for _, s in value.elements] if fmt is FeatureFileFormat.VERSIONED else [value]
            spec = specs[-1] if specs else None
            if not isinstance(spec, _Composite) or not all(isinstance(s, _Composite) for s in specs):
                raise GoFeaturesError(
                    f"{source}:{value.line}: gate {name!r}: expected a list of versioned specs"
                )
            if name in gates:
                raise GoFeaturesError(
                    f"{source}:{value.line}: gate {name!r} is declared twice (first on line {gates[name][1]})"
                )
            gates[name] = (_spec(spec, source, name), value.line)
    if not formats:
        raise GoFeaturesError(
            f"{source}: no map[featuregate.Feature]featuregate.FeatureSpec or VersionedSpecs literal found"
        )
    fmt = FeatureFileFormat.VERSIONED if FeatureFileFormat.VERSIONED in formats else FeatureFileFormat.FLAT
    return fmt, tuple(gates[name][0] for name in sorted(gates))


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
