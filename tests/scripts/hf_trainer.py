"""A training script written the way Hugging Face users write one, unmodified for memprobe: a small Llama built
from its configuration (no hub access, no weights), a few synthetic samples, and the `Trainer` that trains it. Run
with `python tests/scripts/hf_trainer.py [--max-steps N] [--truth FILE] [--output-dir DIR]`.

With --truth FILE it also writes, without memprobe, what autograd saves in its last step's forward (its own
saved_tensors_hooks pack hook around the loss's forward, parameters apart): the ground truth memprobe's figures are
held to.
"""

import argparse
import json
from contextlib import nullcontext

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments


class Samples(torch.utils.data.Dataset):
    def __init__(self, n=16, seq=32, vocab=256):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (n, seq), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class CountingTrainer(Trainer):
    """The Trainer, counting what autograd saves in the last step's forward when asked (--truth)."""

    truth_path = None
    max_steps = 0

    def compute_loss(self, model, inputs, *args, **kwargs):
        last = self.truth_path and self.state.global_step == self.max_steps - 1
        packed = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t) if last else nullcontext():
            loss = super().compute_loss(model, inputs, *args, **kwargs)
        if last:
            params = {p.untyped_storage().data_ptr() for p in model.parameters()}
            seen = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in packed}
            with open(self.truth_path, "w") as f:
                json.dump({"saved_bytes": sum(n for ptr, n in seen.items() if ptr not in params and n)}, f)
        return loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--truth", default=None)
    ap.add_argument("--output-dir", default="hf-trainer-out")
    args = ap.parse_args()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        use_cache=False,
    )
    model = LlamaForCausalLM(config)
    training = TrainingArguments(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=4,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = CountingTrainer(model=model, args=training, train_dataset=Samples())
    trainer.truth_path, trainer.max_steps = args.truth, args.max_steps
    trainer.train()


if __name__ == "__main__":
    main()
