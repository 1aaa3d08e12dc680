"""The MCP tools' ``config`` argument as a typed object, generated from the configuration's declarations
(:func:`memprobe.fields.declared` of :class:`~memprobe.config.ProbeConfig`): one property per field, with its type,
its words (an enum) where it has them, its default and its help; no other key (``additionalProperties: false``).
The SDK publishes each tool's arguments as the JSON Schema of these models and validates a call against them, so an
agent reads what to pass instead of guessing, and a wrong type is refused naming the type the field takes
(:func:`config_key_error`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..config import ProbeConfig
from ..fields import Kind, Option, declared, default_of, shown
from ..rundir.schema import CONFIG_KINDS

# a diff's sides name their recipes (the `a` and `b` arguments), as on the command line
SIDE_NAMED = ("recipe",)
_LEFT_OUT_BECAUSE = {"recipe": "a side's recipe is its own argument, a or b"}


def _field(f, o: Option) -> tuple[Any, Any]:
    """One configuration field as a property: its type (its words where it has them; null where it may be not given)
    and its default and help. A dimension a preset may set has no default of its own here (null: the preset's, else
    the field's), as its flag has none."""
    words = o.words()
    tp: Any = Literal[tuple(words)] if words else CONFIG_KINDS[o.kind]
    default = None if o.preset else default_of(f)
    help_text = f"{o.help} [default: {default_of(f)}, or the preset's]" if o.preset else o.help
    if default is None:
        tp = tp | None
    if o.kind in (Kind.OPS, Kind.WORDS):
        default = list(default)
    return tp, Field(default=default, description=" ".join(help_text.split()))


def config_argument(name: str, leave_out: tuple[str, ...] = ()) -> type[BaseModel]:
    """The model of a tool's configuration argument: every field of :class:`ProbeConfig` but ``leave_out``."""
    fields = {f.name: _field(f, o) for f, o in declared(ProbeConfig) if f.name not in leave_out}
    model = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
    model.__doc__ = (
        "A probe configuration: report.json's `config` fields, each a `memprobe run` flag (its name with _ for -); "
        "a field not given takes its default."
    )
    return model


def config_values(config: BaseModel | dict | None) -> dict:
    """The fields a call gave (not their defaults: a preset fills the dimensions not given)."""
    if config is None:
        return {}
    if isinstance(config, BaseModel):
        return config.model_dump(exclude_unset=True)
    return dict(config)


def config_key_error(argument: str, key: str, error: dict) -> str:
    """One line for a configuration key a call got wrong, naming what the field takes (as the configuration's own
    check says it: ``config key 'dim': expected an integer, got 'wide'``)."""
    options = {f.name: o for f, o in declared(ProbeConfig)}
    got = shown(error.get("input"))  # a bounded prefix (an integer of 100,000 digits by its count: repr() refuses it)
    if error["type"] == "extra_forbidden":
        why = _LEFT_OUT_BECAUSE.get(key, "it names no field of the configuration")
        return f"{argument} key {key!r}: unknown configuration key ({why}; the tool's input schema lists the keys)"
    o = options[key]
    words = o.words()
    if words:
        return f"{argument} key {key!r}: expected one of {', '.join(words)}, got {got}"
    if error["type"].endswith("_type") or error["type"] == "finite_number":
        return f"{argument} key {key!r}: expected {o.expected()}, got {got}"
    return f"{argument} key {key!r}: {error['msg'][0].lower()}{error['msg'][1:]}, got {got}"


# the tools' configuration arguments (module level: the SDK reads the tools' annotations by name)
RunConfig = config_argument("RunConfig")
SideConfig = config_argument("SideConfig", leave_out=SIDE_NAMED)
