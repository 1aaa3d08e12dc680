"""Hugging Face transformers causal LMs, probed from their ``config.json`` alone (``--hf-config``).

- :func:`build_causal_lm`: the model ``AutoModelForCausalLM.from_config`` builds from a local
  ``config.json`` (no weights, no hub access, no remote code), with its first ``--layers`` decoder blocks,
  in fp32 on the probe's device, its KV cache off; and a batch of token ids;
- :func:`decoder_blocks`: the attribute path of its decoder blocks, from the model's own declaration of
  them (``_no_split_modules``: ``model.layers`` for Llama, ``transformer.h`` for GPT-2);
- :func:`turn_off_kv_cache`: a model a ``--model`` factory built with ``use_cache=True`` (the library's default)
  gets it turned off: training does not use the cache, and the cache's objects do not trace under
  torch.compile (``'DynamicLayer' object has no attribute 'device'``).

Install it with ``pip install 'memprobe[hf]'``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..errors import ConfigError

INSTALL_HINT = "pip install 'memprobe[hf]' (or pip install transformers)"
# keys of a config.json that would make transformers fetch or run code, or load quantized weights: dropped
_DROPPED_KEYS = {
    "auto_map": "remote code is never run",
    "quantization_config": "a checkpoint's storage format; memprobe builds the model without weights",
}
MAX_CONFIG_BYTES = 4 * 2**20


def transformers_version() -> str | None:
    try:
        return version("transformers")
    except PackageNotFoundError:
        return None


def why_unavailable() -> str | None:
    """Why this interpreter cannot build a model from a config.json (None: it can); where transformers is not
    installed, said without importing anything."""
    if transformers_version() is None:
        return f"--hf-config needs Hugging Face transformers, which is not installed: {INSTALL_HINT}"
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        return f"--hf-config needs Hugging Face transformers ({e}): {INSTALL_HINT}"
    return None


def _require():
    why = why_unavailable()
    if why:
        raise ConfigError(why)


def read_config(path: str) -> dict:
    """The JSON object of a ``config.json`` (``path`` is the file or a directory holding one), or ConfigError."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise ConfigError(f"--hf-config {path}: no such file (give a config.json, or a directory holding one)")
    if p.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"--hf-config {p}: {p.stat().st_size} bytes is not a model configuration (over 4 MiB)")
    from ..rundir.read import parse_json, read_text

    doc = parse_json(read_text(p, f"--hf-config {p}"), f"--hf-config {p}")  # bounded: no NaN, no runaway nesting
    if not isinstance(doc, dict) or not isinstance(doc.get("model_type"), str):
        raise ConfigError(f'--hf-config {p}: not a transformers model configuration (no "model_type")')
    return doc


def _layer_key(config_class) -> str:
    """The key the configuration class stores the decoder depth under (GPT-2: ``n_layer``)."""
    return getattr(config_class, "attribute_map", {}).get("num_hidden_layers", "num_hidden_layers")


def make_config(doc: dict, layers: int, seq: int, where: str):
    """The transformers configuration of ``doc`` with ``layers`` decoder blocks and no KV cache, and the notes
    that say what memprobe changed. ConfigError for a model type transformers does not know, too few layers,
    or a sequence longer than the model's positions."""
    config_class = _config_class(doc, where)
    doc, notes = edited_doc(doc, layers, where)
    doc.pop("model_type")
    try:
        config = config_class.from_dict(doc)
    except Exception as e:  # transformers validates the values (heads dividing the width, ...)
        raise ConfigError(f"--hf-config {where}: transformers refuses this configuration: {type(e).__name__}: {e}") from None
    limit = getattr(config, "max_position_embeddings", None)
    if isinstance(limit, int) and seq > limit:
        raise ConfigError(f"--seq {seq}: the model of {where} has {limit} positions (max_position_embeddings)")
    return config, notes


def _config_class(doc: dict, where: str):
    _require()
    from transformers import CONFIG_MAPPING

    model_type = doc["model_type"]
    if model_type not in CONFIG_MAPPING:
        raise ConfigError(
            f"--hf-config {where}: transformers {transformers_version()} has no model type {model_type!r} "
            "(memprobe runs no remote code): upgrade transformers, or build the model in a --model factory"
        )
    return CONFIG_MAPPING[model_type]


def edited_doc(doc: dict, layers: int, where: str) -> tuple[dict, list[str]]:
    """``doc`` (its ``model_type`` kept) as the model is built from it: the keys that would fetch or run code dropped,
    ``layers`` decoder blocks (and as many layer types), no KV cache; and the notes that say so."""
    config_class = _config_class(doc, where)
    doc = dict(doc)
    notes = []
    for key, why in _DROPPED_KEYS.items():
        if doc.pop(key, None) is not None:
            notes.append(f"{key} in {where} ignored: {why}")
    key = _layer_key(config_class)
    depth = doc.get(key, getattr(config_class(), key, None))
    if not isinstance(depth, int) or depth < 1:
        raise ConfigError(f"--hf-config {where}: {key} is {depth!r}, not a number of decoder layers")
    if layers > depth:
        raise ConfigError(f"--layers {layers}: the model of {where} has {depth} decoder layers")
    doc[key] = layers
    if isinstance(doc.get("layer_types"), list):  # one attention type per layer (Qwen2, Gemma, ...)
        doc["layer_types"] = doc["layer_types"][:layers]
    if doc.get("use_cache", True):
        notes.append("KV cache turned off (use_cache=False): training does not use it")
    doc["use_cache"] = False
    return doc, notes


def causal_lm_class(config, where: str):
    """The causal LM class transformers builds for ``config``, or ConfigError (an encoder, a vision model)."""
    from transformers import AutoModelForCausalLM

    try:
        return AutoModelForCausalLM._model_mapping[type(config)]
    except KeyError:
        raise ConfigError(
            f"--hf-config {where}: transformers builds no causal LM from a {type(config).__name__} (an encoder or another "
            "task's model): give a causal LM's config.json, or build the model in a --model factory"
        ) from None


def attention_for(model_class, asked: str | None) -> tuple[str, list[str]]:
    """The attention implementation to build with, and the note that says why when memprobe chose it: the one asked
    for; else SDPA (the fused attention torchtitan trains with) where the model class supports it, else eager."""
    if asked is not None:
        return asked, []
    if getattr(model_class, "_supports_sdpa", True):
        return "sdpa", []
    return "eager", [
        f"attention: {model_class.__name__} does not support SDPA in transformers {transformers_version()}: built with "
        'attn_implementation="eager" (--attn-implementation chooses another)'
    ]


def build_causal_lm(path: str, layers: int, device, batch: int, seq: int, seed: int = 0, attention: str | None = None):
    """``(model, (token_ids,), notes)``: the causal LM of the ``config.json`` at ``path``, built in fp32 on
    ``device`` with random weights (``seed``), its first ``layers`` decoder blocks, no KV cache, with ``attention``
    (transformers' ``attn_implementation``; default: SDPA where the model supports it, else eager)."""
    import torch

    config, implementation, vocab, notes = _planned(path, layers, seq, attention)
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    try:
        with torch.device(device):
            model = AutoModelForCausalLM.from_config(
                config, dtype=torch.float32, attn_implementation=implementation, trust_remote_code=False
            )
    except (ValueError, ImportError) as e:  # an implementation transformers refuses for this model, or lacks here
        first = (str(e).strip().splitlines() or [""])[0]
        raise ConfigError(
            f"--hf-config {path}: --attn-implementation {implementation}: transformers refuses it: {first}"
        ) from None
    model.train()
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    tokens = torch.randint(0, vocab, (batch, seq), generator=g).to(device)
    return model, (tokens,), notes


def _planned(path: str, layers: int, seq: int, attention: str | None):
    """What :func:`build_causal_lm` builds from the ``config.json`` at ``path``: the configuration, the attention
    implementation, the vocabulary its token ids are drawn from, the notes."""
    config, notes = make_config(read_config(path), layers, seq, path)
    implementation, said = attention_for(causal_lm_class(config, path), attention)
    vocab = getattr(config.get_text_config(), "vocab_size", None)
    if not isinstance(vocab, int) or vocab < 1:
        raise ConfigError(f"--hf-config {path}: no vocab_size to draw token ids from")
    return config, implementation, vocab, notes + said


def script_plan(path: str, layers: int, seq: int, attention: str | None) -> tuple[dict, str, int]:
    """What a standalone script builds the model of :func:`build_causal_lm` from: the ``config.json`` at ``path`` as
    edited (:func:`edited_doc`; ``transformers.AutoConfig.for_model(**doc)`` makes its configuration), the attention
    implementation, the vocabulary."""
    _, implementation, vocab, _ = _planned(path, layers, seq, attention)
    doc, _ = edited_doc(read_config(path), layers, path)
    return doc, implementation, vocab


def is_transformers_model(model) -> bool:
    import sys

    transformers = sys.modules.get("transformers")
    return transformers is not None and isinstance(model, transformers.PreTrainedModel)


def turn_off_kv_cache(model) -> list[str]:
    """A transformers model built with ``use_cache=True`` (the library's default) gets it turned off; the note
    that says so (none when it was off)."""
    config = getattr(model, "config", None)
    if not is_transformers_model(model) or not getattr(config, "use_cache", False):
        return []
    config.use_cache = False
    for sub in ("text_config", "decoder"):  # composite configurations carry it per part
        part = getattr(config, sub, None)
        if getattr(part, "use_cache", False):
            part.use_cache = False
    return ["KV cache turned off (config.use_cache=False): training does not use it, and its objects do not trace"]


def decoder_blocks(model) -> str | None:
    """The dotted path of the ModuleList holding the model's decoder blocks (the classes the model declares in
    ``_no_split_modules``), or None when it declares none that a ModuleList holds."""
    import torch.nn as nn

    block_classes = set(getattr(model, "_no_split_modules", None) or ())
    if not block_classes:
        return None
    for name, module in model.named_modules():
        if isinstance(module, nn.ModuleList) and len(module) and all(type(m).__name__ in block_classes for m in module):
            return name
    return None
