"""The device owner's page: ask, see why, see what left this device, manage its documents, in a browser.

Served by ``dgrag edge serve`` on loopback (server.page_host, server.page_port), behind the edge's own API token
(a login form sets a session cookie). Plain HTML from the server, one small script that streams the cloud's
draft; every value shown is escaped, every form carries a CSRF token, and a content security policy allows no
inline script.
"""
