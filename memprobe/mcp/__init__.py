"""memprobe's verbs over the Model Context Protocol (``memprobe mcp``; needs ``pip install 'memprobe[mcp]'``)."""
