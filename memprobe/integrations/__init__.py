"""Optional integrations: code of other projects a probe drives (installed separately)."""
