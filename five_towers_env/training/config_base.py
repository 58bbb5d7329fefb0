"""What the configs of every trainer (``five-towers train``, ``five-towers expert``) share.

* :class:`ConfigError`: a setting that cannot be used, the message naming it;

* :func:`read_config_file`: a YAML file's mapping of settings, or a :class:`ConfigError` saying what is wrong
  with the file;
* :func:`checked_values`: a mapping's values checked against a settings dataclass's field types (an
  unknown key, a value of the wrong type: a :class:`ConfigError` naming the key, with a hint for
  numbers YAML read as strings), sections (``ppo:``) built as their own dataclasses;
* :func:`build_blamed`: a config from its file and ``--set`` overrides, an error naming the one to blame;
* :func:`write_settings`: a config written as YAML (atomically) that reads back to an equal one;
* :func:`settings_table`: every setting with its default and the docstring under its field, as the
  Markdown table of ``docs/training.md``.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import math
import reprlib
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from five_towers_env.core.game import parse_setup_key

T = TypeVar("T")


class ConfigError(ValueError):
    """A config file or mapping that cannot be used; the message names the offending key (and is cut to
    :data:`MAX_MESSAGE` characters: a message quotes values, and a value can be as long as a file)."""

    def __init__(self, message: str) -> None:
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        super().__init__(message)


#: the longest :class:`ConfigError` message
MAX_MESSAGE = 1000


def parse_setup(text: str) -> tuple[int, str]:
    """``"4p-great_powers"`` -> ``(4, "great_powers")`` (the keys of ``GameSpec.shipped_policies``), or
    :class:`ConfigError`."""
    try:
        return parse_setup_key(text)
    except ValueError as e:
        raise ConfigError(f"setups: {e}") from None


def init_policy_path(text: str) -> Path:
    """The file ``init_policy`` names: the path as given, or else inside the installed package's parent folder
    (so ``five_towers_env/games/.../policies/x.npz`` names a shipped policy from any working directory)."""
    path = Path(text)
    if path.is_file() or path.is_absolute():
        return path
    import five_towers_env

    return Path(five_towers_env.__file__).resolve().parents[1] / path


#: the largest config file read (the shipped ones are under 4 KB)
MAX_CONFIG_BYTES = 1 << 20
#: the most values a config may hold once YAML's aliases are expanded: an alias names a value already read,
#: so a few hundred bytes of nested aliases can stand for billions of values, which every later walk over
#: the config (the type checks, an error message, a copy written to the run folder) would expand
MAX_CONFIG_VALUES = 100_000


def _expanded_size(node: Any, memo: dict[int, int]) -> int:
    """How many scalars, sequences and mappings ``node`` stands for with every alias expanded (a count
    over the composed graph, each shared node counted once per use but walked once)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a node that reaches itself: counted once (its construction refuses the cycle later)
    size = 1
    if isinstance(node.value, list):
        for item in node.value:
            parts = item if isinstance(item, tuple) else (item,)  # a mapping's items are (key, value) pairs
            size += sum(_expanded_size(x, memo) for x in parts)
            if size > MAX_CONFIG_VALUES:
                break
    memo[id(node)] = size
    return size


def load_yaml(text: str, what: str) -> Any:
    """``yaml.safe_load(text)``, refusing text whose aliases expand past :data:`MAX_CONFIG_VALUES` values (a
    :class:`ConfigError` naming ``what``). YAML errors propagate as ``yaml.YAMLError``."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_CONFIG_VALUES:
            raise ConfigError(f"{what}: its aliases (*name) expand to more than {MAX_CONFIG_VALUES:,} values; "
                              "a config is a few hundred")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping of settings in a YAML config file; raise :class:`ConfigError` for a missing file,
    a folder, a device or other file that is not a regular one, a file over :data:`MAX_CONFIG_BYTES`,
    invalid YAML, aliases that expand past :data:`MAX_CONFIG_VALUES`, an empty file or one whose top
    level is not a mapping."""
    import yaml

    path = Path(path)
    try:
        if path.is_dir():
            raise ConfigError(f"config {path} is a folder, not a YAML file (e.g. configs/ppo_selfplay_2p.yaml)")
        if not path.exists():
            raise ConfigError(f"config file {path} does not exist")
        info = path.stat()
    except OSError as e:  # a name too long, a loop of links
        raise ConfigError(f"config {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):  # a FIFO or a device (/dev/zero) would be read forever
        raise ConfigError(f"config {path} is not a regular file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"config {path} is {info.st_size:,} bytes; a config is at most {MAX_CONFIG_BYTES:,}")
    try:
        with path.open("rb") as f:  # at most the limit, should the file grow after the check
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config {path} is over {MAX_CONFIG_BYTES:,} bytes")
        data = load_yaml(raw.decode(), str(path))
    except (yaml.YAMLError, ValueError) as e:  # ValueError: an integer of more digits than Python reads
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from e
    except RecursionError:
        raise ConfigError(f"{path}: nests too deeply to be a config") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the config: {e}") from e
    if data is None:
        raise ConfigError(f"{path}: the config file is empty; it must be a mapping of settings "
                          "(e.g. total_timesteps: 100000), see configs/ppo_selfplay_2p.yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of settings (key: value lines), "
                          f"got a {type(data).__name__} at the top level")
    return data


# -- values against field types --------------------------------------------------------------------

_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxother, _REPR.maxlevel = 120, 120, 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8


def short_repr(value: Any, limit: int = 200) -> str:
    """``repr(value)`` for an error message: at most ``limit`` characters, and never the whole of a large or
    deeply nested value (reprlib stops walking it)."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_number(value: Any) -> float | None:
    """``value`` read as a number if it is a string such as ``"1e5"`` (YAML 1.1 reads exponents without
    a dot as strings), else None."""
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _yaml_reads_a_number(text: str) -> bool:
    try:
        import yaml

        return isinstance(yaml.safe_load(text), (int, float)) and not isinstance(yaml.safe_load(text), bool)
    except Exception:
        return False


def _number_hint(key: str, value: Any, hint: type) -> str | None:
    """A message telling how to write a number YAML did not read as one (or a float given for an int)."""
    number = _as_number(value)
    if number is not None and _yaml_reads_a_number(value):  # a quoted number: not YAML's doing
        return f"{key}: expected {hint.__name__}, got {short_repr(value)} (a string: write it without quotes)"
    yaml_note = f" (YAML reads {short_repr(value)[1:-1]} as a string)" if number is not None else ""
    if number is None and isinstance(value, float):
        number = value
    if number is None or number != number or number in (float("inf"), float("-inf")):
        return None
    if hint is int:
        if not float(number).is_integer():
            return f"{key} must be an integer, got {short_repr(value)}"
        return f"{key} must be an integer; write {int(number)}{yaml_note}"
    return f"{key} must be a number; write {number!r}{yaml_note}"


def check_type(key: str, value: Any, hint: Any) -> Any:
    """``value`` as the type ``hint`` (``int``, ``float``, ``str``, ``bool``, ``list[...]``, ``tuple[..., ...]``,
    ``dict[..., ...]``), or a :class:`ConfigError` naming ``key``."""
    origin = getattr(hint, "__origin__", None)
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an integer past float's range
            number = math.inf
        if not math.isfinite(number):
            raise ConfigError(f"{key}: must be a finite number, got {shown(value)}")
        return number
    if hint in (int, str, bool):
        if hint is str and type(value) is str and "\0" in value:  # a path or a name with it fails far from here
            raise ConfigError(f"{key}: must not contain a NUL character, got {short_repr(value)}")
        if type(value) is hint:
            return value
        if hint is int:
            message = _number_hint(key, value, hint)
            if message:
                raise ConfigError(message)
        raise ConfigError(f"{key}: expected {hint.__name__}, got {short_repr(value)}")
    if hint is float:
        message = _number_hint(key, value, hint)
        if message:
            raise ConfigError(message)
    if origin in (list, tuple):
        item = hint.__args__[0]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key}: expected a list, got {short_repr(value)}")
        items = [check_type(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
        return items if origin is list else tuple(items)
    if origin is dict:
        k_hint, v_hint = hint.__args__
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {short_repr(value)}")
        return {check_type(f"{key} key", k, k_hint): check_type(f"{key}.{k}", v, v_hint) for k, v in value.items()}
    raise ConfigError(f"{key}: expected {getattr(hint, '__name__', hint)}, got {short_repr(value)}")


def checked_values(cls: type, data: Any, prefix: str = "", sections: Mapping[str, type] | None = None,
                   ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    """``data``'s values checked against the fields of the dataclass ``cls``: a key that is no field (nor in
    ``ignore``) or a value of the wrong type raises :class:`ConfigError` naming it (``prefix`` + key). A key of
    ``sections`` holds a mapping built into that dataclass (its keys named ``<section>.<key>``)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix or 'config'}: expected a mapping, got {short_repr(data)}")
    hints = get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(data) - set(names) - set(ignore), key=str)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(prefix + str(k) for k in unknown)}; "
                          f"known: {', '.join(sorted(names))}")
    values = {}
    limits = limits_of(cls)
    for key, value in data.items():
        if key in ignore:
            continue
        if sections and key in sections:
            values[key] = sections[key](**checked_values(sections[key], value, f"{prefix}{key}."))
        else:
            values[key] = check_type(prefix + key, value, hints[key])
            if key in limits:
                check_limit(prefix + key, values[key], limits[key])
    return values


# -- upper limits ----------------------------------------------------------------------------------

def shown(value: Any) -> str:
    """A number as an error shows it: an integer too long to read whole by its size."""
    if isinstance(value, int) and value.bit_length() > 100:
        return f"an integer of {int(value.bit_length() * math.log10(2)) + 1} digits"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else short_repr(value)


def limits_of(cls: type) -> dict[str, int | tuple[int, int]]:
    """The upper limits of a settings dataclass's numbers (its ``LIMITS``): a setting's largest value, or for
    a list of sizes ``(largest entry, most entries)``."""
    return dict(getattr(cls, "LIMITS", {}))


def check_limit(key: str, value: Any, limit: int | tuple[int, int]) -> None:
    """Raise :class:`ConfigError` naming ``key`` where ``value`` is over ``limit`` (see :func:`limits_of`)."""
    if isinstance(limit, tuple):
        largest, most = limit
        if len(value) > most:
            raise ConfigError(f"{key}: at most {most} entries, got {len(value)}")
        for i, v in enumerate(value):
            check_limit(f"{key}[{i}]", v, largest)
    elif value > limit:
        raise ConfigError(f"{key}: at most {limit:,}, got {shown(value)}")


def limit_text(limit: int | tuple[int, int]) -> str:
    """A limit as the settings tables say it."""
    if isinstance(limit, tuple):
        return f"At most {limit[1]} entries, each at most {limit[0]:,}."
    return f"At most {limit:,}."


# -- a config file with --set overrides ----------------------------------------------------------

def apply_overrides(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Set dotted keys (``{"ppo.n_epochs": 2}``) in a config mapping, in place; returns it."""
    for dotted, value in overrides.items():
        node = data
        *parents, last = dotted.split(".")
        if not all(parents) or not last:
            raise ConfigError(f"bad key {dotted!r}; "
                              "write a setting or section.setting, e.g. ppo.n_epochs")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{dotted}: {part} is not a section")
        node[last] = value
    return data


def _show_override(key: str, value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return f"--set {key}={text if len(text) <= 200 else text[:197] + '...'}"


def build_blamed(data: dict[str, Any], overrides: dict[str, Any] | None, source: str,
                 check: Callable[[dict[str, Any]], Any], build: Callable[[dict[str, Any]], T]) -> T:
    """``build(data with overrides applied)``, where an error names whichever is to blame: a ``--set``
    override (``check``, keys and types only, fails on it alone, or it broke a valid ``data``) or ``source``
    (``data``'s origin, e.g. the file's path)."""
    overrides = dict(overrides or {})
    for key, value in overrides.items():  # each override on its own: unknown keys and types
        try:
            check(apply_overrides({}, {key: value}))
        except ConfigError as e:
            raise ConfigError(f"{_show_override(key, value)}: {e}") from None
    try:
        check(data)  # the source on its own: unknown keys and types
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    try:
        source_ok = build(copy.deepcopy(data)) is not None
    except ConfigError:
        source_ok = False
    try:
        return build(apply_overrides(copy.deepcopy(data), overrides))
    except ConfigError as e:
        if overrides and source_ok:  # the overrides broke a valid config
            shown = " ".join(_show_override(k, v) for k, v in overrides.items())
            raise ConfigError(f"{shown}: {e}") from None
        raise ConfigError(f"{source}{' (with the --set overrides)' if overrides else ''}: {e}") from None


# -- writing and documenting ---------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """``value`` with tuples as lists (what YAML writes plainly and reads back as the same setting)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def write_settings(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Write a config's settings as YAML, atomically (in the order given; tuples as lists)."""
    import yaml

    from five_towers_env.atomic import write_text

    return write_text(path, yaml.safe_dump(_plain(dict(data)), sort_keys=False))


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a settings dataclass, as one line."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(tree, ast.ClassDef)
    body = tree.body
    docs = {}
    for node, after in zip(body, body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _default(field: dataclasses.Field[Any]) -> Any:
    """A field's default value (its factory's product for a mutable one)."""
    return field.default_factory() if callable(field.default_factory) else field.default


def settings_table(cls: type, sections: Mapping[str, type] | None = None) -> str:
    """Every setting of the dataclass ``cls`` (and of its ``sections``, as ``<section>.<key>``) with its
    default and meaning, as a Markdown table."""
    sections = dict(sections or {})
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for prefix, klass in [("", cls)] + [(f"{k}.", c) for k, c in sections.items()]:
        docs = field_docs(klass)
        for f in dataclasses.fields(klass):
            if klass is cls and f.name in sections:
                continue
            doc = docs[f.name].replace("``", "`").replace("|", "/")
            limit = limits_of(klass).get(f.name)
            doc += f" {limit_text(limit)}" if limit is not None else ""
            rows.append(f"| `{prefix}{f.name}` | `{_default(f)!r}` | {doc} |")
    return "\n".join(rows)


__all__ = ["ConfigError", "init_policy_path", "parse_setup", "apply_overrides", "build_blamed", "check_limit",
           "check_type", "checked_values", "field_docs", "limit_text", "limits_of", "read_config_file",
           "settings_table", "write_settings"]
