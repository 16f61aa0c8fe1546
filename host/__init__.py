"""The onecard host: rules engines (``host.games``) and the trio server that runs tables."""
