"""The minimal models memprobe builds (``memprobe run --repro NAME``): plain PyTorch modules, importing nothing but
torch. memprobe's model families (memprobe/targets/) build them; memprobe's stack (float8, SAC, compile, FSDP2)
wraps them; ``python -m memprobe.capture.bare`` trains them without memprobe's recording."""
