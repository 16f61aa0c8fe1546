"""The network layer shared by the host's bots and the terminal clients.

``net.session`` is the async protocol client (handshake, requests by id, pushes, heartbeat);
``net.trust`` opens TLS 1.3 to a host and pins its certificate; ``net.address`` parses
``host[:port]`` (a click parameter type too) and holds the default port; ``net.discover``
advertises a host on the LAN and finds hosts there (mDNS); ``net.retry`` paces retries. It
imports the sans-I/O ``protocol`` package and never ``host`` or ``client``, both of which use it
(a test in ``tests/test_layout.py`` keeps it so).
"""
