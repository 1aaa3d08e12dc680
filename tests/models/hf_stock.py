"""A Hugging Face GPT-2 as a user builds it, with the library's defaults (``use_cache=True``): probed with
``memprobe run --model tests/models/hf_stock.py:build``; memprobe finds its blocks (``transformer.h``), turns the
KV cache off and says so. Its projections are ``Conv1D``, which float8 training does not convert."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def build(device):
    config = GPT2Config(n_embd=64, n_head=4, n_layer=2, n_positions=256, vocab_size=256, bos_token_id=0, eos_token_id=0)
    assert config.use_cache  # the library's default, left as a user leaves it
    model = GPT2LMHeadModel(config)
    tokens = torch.randint(0, config.vocab_size, (2, 32), device=device)
    return model, (tokens,)
