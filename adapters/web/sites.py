"""Who may reach the server from a browser, and from which address a request really comes.

* Host: a loopback server without a secret (one local person, no login) answers only ``localhost``
  and loopback addresses (plus FUZI_WEB_ALLOWED_HOSTS). Another name pointing at 127.0.0.1 is a
  DNS-rebinding page acting as the local person: 400.
* Origin: a state-changing request (POST, PUT, PATCH, DELETE) sent by a page of another site (its
  ``Origin`` is neither this server nor one of FUZI_WEB_CORS_ORIGINS, or the browser says
  ``Sec-Fetch-Site: cross-site``) is refused with 403. Programs that send no Origin are not browsers
  and pass.
* Client address: ``X-Forwarded-For`` is believed only when the connection comes from a proxy named
  in FUZI_WEB_TRUSTED_PROXIES; the client is the right-most address in it that is not such a proxy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def host_name(host: str) -> str:
    """``Host`` header → lower-case name without port (``[::1]:80`` → ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    return (host.rsplit(":", 1)[0] if host.count(":") == 1 else host).rstrip(".")


def local_host(host: str, extra: Iterable[str] = ()) -> bool:
    """True for ``localhost``, a loopback address, or a name in ``extra``."""
    name = host_name(host)
    if name == "localhost" or name in set(extra):
        return True
    address = _ip(name)
    return address is not None and address.is_loopback


def cross_site(method: str, headers: Mapping[str, str], allowed_origins: Iterable[str] = ()) -> bool:
    """True when a browser sends a state-changing request from another site's page."""
    if method.upper() not in UNSAFE_METHODS:
        return False
    origin = headers.get("origin")
    if origin is None:
        return headers.get("sec-fetch-site", "") == "cross-site"
    if origin.rstrip("/") in {o.rstrip("/") for o in allowed_origins}:
        return False
    netloc = urlsplit(origin).netloc.lower()
    return not netloc or netloc != headers.get("host", "").strip().lower()


def networks(names: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDR networks (``10.0.0.0/8``); ValueError names a bad one."""
    return tuple(ipaddress.ip_network(name.strip(), strict=False) for name in names)


def client_ip(peer: str, forwarded_for: str | None, proxies: tuple[Network, ...]) -> str:
    """The client's address: the peer, or, behind a trusted proxy, the last untrusted X-Forwarded-For hop."""
    if not proxies or not forwarded_for or not _trusted(peer, proxies):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, proxies):
            return hop if _ip(hop) is not None else peer
    return hops[0] if hops and _ip(hops[0]) is not None else peer


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in net for net in proxies)
