"""The server: listening, connections, admission, host identity and the lobby."""
