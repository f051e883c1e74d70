"""Read Kueue's feature gates from ``pkg/features/kube_features.go`` (or the generated YAML list).

Adapter module (parses text handed to it; opens no files itself). Two Go formats exist:

- Kueue <= 0.10, flat::

      var defaultFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
          PartialAdmission: {Default: true, PreRelease: featuregate.Beta},
      }

- Kueue >= 0.11, versioned (the LAST entry applies: Kueue sets no emulation version and the
  component-base binary version 1.x is newer than every ``0.y`` entry)::

      var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
          PartialAdmission: {
              {Version: version.MustParse("0.4"), Default: true, PreRelease: featuregate.Beta},
          },
      }

Real Go is not tidy: comments anywhere, blank lines, entries split over lines, ``LockToDefault``
before or after ``PreRelease``, keys qualified (``features.X``) or quoted, typed composite literals
(``featuregate.FeatureSpec{...}``) and gates spread over several map blocks. This is not a Go
parser; it reads composite literals with a small scanner that skips strings and comments and keeps
line numbers for errors. Gate names come from the ``Name featuregate.Feature = "Name"`` constants.

From Kueue 0.15 on, upstream generates ``test/compatibility_lifecycle/reference/versioned_feature_list.yaml``;
:func:`parse_versioned_feature_list` reads it and is preferred where a release has it.
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


_MAP_RE = re.compile(
    r"map\s*\[\s*(?:\w+\.)?Feature\s*\]\s*(?:\w+\.)?(FeatureSpec|VersionedSpecs)\s*\{",
)
_CONST_RE = re.compile(r"\b([A-Za-z_]\w*)\s+(?:\w+\.)?Feature\s*=\s*\"([^\"\\]*)\"")
_STAGES = {
    "Alpha": GateStage.ALPHA,
    "Beta": GateStage.BETA,
    "GA": GateStage.GA,
    "Deprecated": GateStage.DEPRECATED,
}


@dataclass(frozen=True, slots=True)
class _Composite:
    elements: tuple[tuple[str | None, _Composite | str], ...]
    line: int


def _strip_comments(text: str) -> str:
    """Blank out comments (keeping newlines, so offsets and lines stay put); strings are kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        elif ch in "\"'`":
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, i: int) -> int:
    quote = text[i]
    j = i + 1
    while j < len(text):
        if text[j] == "\\" and quote != "`":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return len(text)


class _Scanner:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def fail(self, pos: int, message: str) -> GoFeaturesError:
        return GoFeaturesError(f"{self.source}:{self.line(pos)}: {message}")

    def skip_ws(self, i: int) -> int:
        while i < len(self.text) and self.text[i].isspace():
            i += 1
        return i

    def composite(self, i: int) -> tuple[_Composite, int]:
        """Parse ``{ elem, elem, }`` starting at ``text[i] == '{'``."""
        start = i
        i += 1
        elements: list[tuple[str | None, _Composite | str]] = []
        while True:
            i = self.skip_ws(i)
            if i >= len(self.text):
                raise self.fail(start, "unclosed '{'")
            if self.text[i] == "}":
                return _Composite(tuple(elements), self.line(start)), i + 1
            first, i = self.value(i)
            i = self.skip_ws(i)
            if i < len(self.text) and self.text[i] == ":":
                if not isinstance(first, str):
                    raise self.fail(i, "a composite literal cannot be a key")
                value, i = self.value(self.skip_ws(i + 1))
                elements.append((first, value))
            else:
                elements.append((None, first))
            i = self.skip_ws(i)
            if i < len(self.text) and self.text[i] == ",":
                i += 1
            elif i < len(self.text) and self.text[i] == "}":
                continue
            else:
                raise self.fail(i, "expected ',' or '}' in a composite literal")

    def value(self, i: int) -> tuple[_Composite | str, int]:
        """An expression up to a top-level ``,``/``:``/``}``, or a (possibly typed) composite literal."""
        if i < len(self.text) and self.text[i] == "{":
            return self.composite(i)
        start = i
        depth = 0
        while i < len(self.text):
            ch = self.text[i]
            if ch in "\"'`":
                i = _string_end(self.text, i)
                continue
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch == "{":
                # a typed composite literal: featuregate.FeatureSpec{...}
                return self.composite(i)
            elif depth == 0 and ch in ",:}":
                break
            i += 1
        expr = " ".join(self.text[start:i].split())
        if not expr:
            raise self.fail(start, "expected a value")
        return expr, i


def _unquote(expr: str) -> str | None:
    if len(expr) >= 2 and expr[0] == expr[-1] and expr[0] in '"`':
        return expr[1:-1]
    return None


def _gate_name(expr: str, constants: dict[str, str]) -> str:
    literal = _unquote(expr)
    if literal is not None:
        return literal
    ident = expr.rsplit(".", 1)[-1]
    return constants.get(ident, ident)


def _bool(expr: str, scanner: _Scanner, pos_line: int, field: str) -> bool:
    if expr in ("true", "false"):
        return expr == "true"
    raise GoFeaturesError(f"{scanner.source}:{pos_line}: {field} must be true or false, not {expr!r}")


def _spec(comp: _Composite, scanner: _Scanner, gate: str) -> tuple[str | None, FeatureGate]:
    fields: dict[str, str] = {}
    for key, value in comp.elements:
        if key is None or not isinstance(value, str):
            raise GoFeaturesError(
                f"{scanner.source}:{comp.line}: gate {gate!r}: expected keyed fields (Default: ..., PreRelease: ...)"
            )
        fields[key] = value
    unknown = sorted(set(fields) - {"Default", "PreRelease", "LockToDefault", "Version"})
    if unknown:
        raise GoFeaturesError(
            f"{scanner.source}:{comp.line}: gate {gate!r}: unknown field(s) {', '.join(unknown)}"
        )
    if "Default" not in fields or "PreRelease" not in fields:
        raise GoFeaturesError(
            f"{scanner.source}:{comp.line}: gate {gate!r}: Default and PreRelease are required"
        )
    stage_name = fields["PreRelease"].rsplit(".", 1)[-1]
    if stage_name not in _STAGES:
        raise GoFeaturesError(
            f"{scanner.source}:{comp.line}: gate {gate!r}: unknown PreRelease {fields['PreRelease']!r}"
        )
    version = None
    if "Version" in fields:
        match = re.search(r"\"([^\"]+)\"", fields["Version"])
        version = match.group(1) if match else fields["Version"]
    return version, FeatureGate(
        name=gate,
        stage=_STAGES[stage_name],
        default=_bool(fields["Default"], scanner, comp.line, "Default"),
        lock_to_default=_bool(fields.get("LockToDefault", "false"), scanner, comp.line, "LockToDefault"),
    )


def parse_kube_features(
    text: str, *, source: str = "kube_features.go"
) -> tuple[FeatureFileFormat, tuple[FeatureGate, ...]]:
    """Parse the gate maps of a ``kube_features.go``; return its format and the gates sorted by name.

    Raises:
        GoFeaturesError: no gate map, a malformed literal, a gate declared twice (with both lines).
    """
    clean = _strip_comments(text)
    scanner = _Scanner(clean, source)
    constants = {m.group(1): m.group(2) for m in _CONST_RE.finditer(clean)}
    gates: dict[str, tuple[FeatureGate, int]] = {}
    formats: set[FeatureFileFormat] = set()
    for match in _MAP_RE.finditer(clean):
        versioned = match.group(1) == "VersionedSpecs"
        formats.add(FeatureFileFormat.VERSIONED if versioned else FeatureFileFormat.FLAT)
        body, _ = scanner.composite(match.end() - 1)
        for key, value in body.elements:
            if key is None or not isinstance(value, _Composite):
                raise GoFeaturesError(
                    f"{source}:{body.line}: expected 'Gate: {{...}}' entries in the gate map"
                )
            name = _gate_name(key, constants)
            if versioned:
                specs = [s for _, s in value.elements]
                if not specs or not all(isinstance(s, _Composite) for s in specs):
                    raise GoFeaturesError(
                        f"{source}:{value.line}: gate {name!r}: expected a list of versioned specs"
                    )
                _, gate = _spec(specs[-1], scanner, name)  # type: ignore[arg-type]
            else:
                _, gate = _spec(value, scanner, name)
            if name in gates:
                raise GoFeaturesError(
                    f"{source}:{value.line}: gate {name!r} is declared twice (first on line {gates[name][1]})"
                )
            gates[name] = (gate, value.line)
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
            stage = _STAGES[str(last["preRelease"])]
            default, lock = last["default"], last.get("lockToDefault", False)
        except (KeyError, IndexError, TypeError) as exc:
            raise GoFeaturesError(f"{source}: entry {index}: missing or bad field ({exc})") from None
        if not isinstance(default, bool) or not isinstance(lock, bool):
            raise GoFeaturesError(f"{source}: gate {name!r}: default and lockToDefault must be booleans")
        if name in gates:
            raise GoFeaturesError(f"{source}: gate {name!r} is listed twice")
        gates[name] = FeatureGate(name=name, stage=stage, default=default, lock_to_default=lock)
    return tuple(gates[n] for n in sorted(gates))
