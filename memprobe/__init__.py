"""memprobe: find out why a PyTorch training step uses more memory than it should."""

__version__ = "0.1.0"
SCHEMA_VERSION = 1
