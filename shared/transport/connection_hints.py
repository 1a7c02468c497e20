"""What a failed connection most likely means, in words an operator can act on.

gRPC reports TLS trouble as "Socket closed", "failed to connect to all addresses" or "Hostname Verification Check
failed"; the cause (a server that wants a client certificate, a certificate made for another name, TLS on one
side only) and the setting that fixes it are left to guess. :func:`hint` names them from the status, the details
and how this client connected.
"""

from __future__ import annotations

from shared.transport.grpc_transport import ClientTls

_NAME = ("hostname verification", "peer name", "subject alternative", "san ")
_HANDSHAKE = ("ssl", "tls", "handshake", "certificate", "wrong_version_number", "record layer")


def hint(code: str, details: str, tls: ClientTls, where: str = "the server") -> str:
    """One sentence on what to change, or '' when the failure says nothing about how this client connected.
    ``code`` is the status name (UNAVAILABLE, UNAUTHENTICATED, ...)."""
    said = details.casefold()
    if any(word in said for word in _NAME):
        return (
            f"{where}'s certificate is not made for the name this client used: connect by a name it was made for "
            "(`dgrag certs --cloud-host`) or set the name to check (tls_server_name, --tls-server-name)"
        )
    if code == "UNAVAILABLE" and tls.ca and not tls.cert and ("socket closed" in said or "handshake" in said):
        return (
            f"{where} closed the TLS connection: it may require a client certificate (mutual TLS, tls_client_ca on "
            "the cloud); give this client its own (tls_cert and tls_key, --tls-cert and --tls-key)"
        )
    if code == "UNAVAILABLE" and not tls.ca and ("socket closed" in said or any(w in said for w in _HANDSHAKE)):
        return f"{where} may speak TLS: give this client the CA that signed its certificate (tls_ca, --tls-ca)"
    if code == "UNAVAILABLE" and tls.ca and any(w in said for w in _HANDSHAKE):
        return (
            f"the TLS handshake with {where} failed: check that tls_ca is the CA that signed its certificate and "
            "that it serves TLS at all"
        )
    if code in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        return (
            f"{where} refused this client's credentials: check that its token (token_file or token_env) is the "
            "one on its line in the cloud's tokens file, and, with mutual TLS, that its certificate's name is its id"
        )
    return ""


def explained(code: str, details: str, tls: ClientTls, where: str = "the server") -> str:
    """``CODE: details``, followed by the hint when there is one."""
    advice = hint(code, details, tls, where)
    return f"{code}: {details}" + (f" ({advice})" if advice else "")
