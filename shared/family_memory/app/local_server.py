"""``family-memory serve``: the HTTP API on one machine, without Docker or AWS.

Each HTTP request becomes the API Gateway HTTP API (payload v2) event Lambda
would receive and goes through the same resolver (``app/api.py``); the Lambda
response dict is written back as the HTTP response. There is no SigV4 here: the
server listens on 127.0.0.1 by default and anyone who can reach it acts for any
family, like the assistant's backend behind API Gateway (docs/api.md).

Requests are resolved one at a time (the resolver holds the current event, and
the local runtime's in-process bus and SQLite connections serve one writer);
ThreadingHTTPServer still reads and writes slow connections in parallel.

The same server serves the memory card's pages (``/families/{id}/card``, ``app/card_web/``)
to this machine only: a browser's request from another address is refused, and so is a
change (POST) whose Origin is not the card's own or whose body is not a form; the card's
own per-session form token is checked by the pages. Every other path is the JSON API's,
whose rules below are unchanged (a request with an Origin is refused there).

Every answer is JSON in the API's error shape, including the ones http.server
would write as an HTML page: a method the resolver does not route on a known path
is its 405 (with ``Allow``: PUT, DELETE, OPTIONS, TRACE, HEAD or any other method
name), an unknown path 404; CONNECT (no tunnels here) is 501; a malformed request line or header
is http.server's own 400/414/431, as JSON. The access log escapes control and
format characters (``literal.for_terminal``): a request cannot write escape
sequences to the terminal that runs the server.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from family_memory.app.api import MAX_BODY_BYTES, error_payload, resolve_api_event
from family_memory.app.card_web import app as card_web
from family_memory.app.runtime import Runtime
from family_memory.domain.literal import for_terminal

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
#: Bodies above this are refused before they are read (API Gateway's HTTP API refuses above 10 MB);
#: below it the resolver applies its own cap (``MAX_BODY_BYTES``) with its 413.
READ_LIMIT_BYTES = 10 * 1024 * 1024


def http_event(
    method: str,
    target: str,
    headers: Mapping[str, str] | list[tuple[str, str]],
    body: bytes,
    *,
    source_ip: str = DEFAULT_HOST,
    now: float | None = None,
) -> dict[str, Any]:
    """The HTTP API (payload v2) event for one request: ``target`` is the request line's
    path and query; header names are lower-cased and repeated headers joined with a
    comma; a repeated query parameter is joined with a comma; a body that is not UTF-8
    is base64-encoded, as API Gateway does."""
    parts = urlsplit(target)
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    joined: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        joined[key] = f"{joined[key]},{value}" if key in joined else value
    params: dict[str, str] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        params[name] = f"{params[name]},{value}" if name in params else value
    moment = time.time() if now is None else now
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": parts.path or "/",
        "rawQueryString": parts.query,
        "headers": joined,
        "requestContext": {
            "accountId": "local",
            "apiId": "local",
            "domainName": joined.get("host", DEFAULT_HOST),
            "domainPrefix": "local",
            "http": {
                "method": method.upper(),
                "path": parts.path or "/",
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": joined.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": datetime.fromtimestamp(moment, UTC).strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(moment * 1000),
        },
        "isBase64Encoded": False,
    }
    if params:
        event["queryStringParameters"] = params
    if body:
        try:
            event["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            event["body"] = base64.b64encode(body).decode("ascii")
            event["isBase64Encoded"] = True
    return event


def response_parts(response: Mapping[str, Any]) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body bytes of a Lambda (payload v2) response dict."""
    body = response.get("body") or ""
    data = base64.b64decode(body) if response.get("isBase64Encoded") else str(body).encode("utf-8")
    headers = {str(k): str(v) for k, v in (response.get("headers") or {}).items()}
    return int(response.get("statusCode", 200)), headers, data


#: Hosts that mean this machine only: a server bound to one of them answers only to them.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Addresses that bind every interface: the user chose to be reachable under any name.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")  # noqa: S104 (recognised, not bound, here)


def host_header(host: str, port: int) -> str:
    """``host:port`` as a Host header spells it (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def allowed_hosts(bound: str, port: int) -> frozenset[str] | None:
    """The Host headers a server bound to ``bound:port`` answers (lower case); None: any.
    Checking it keeps a web page from reaching the server through a DNS name it rebinds to
    127.0.0.1 (DNS rebinding): the browser sends that name as the Host."""
    if bound in WILDCARD_HOSTS:
        return None
    return frozenset(host_header(h, port).lower() for h in (*LOOPBACK_HOSTS, bound))


def media_type(content_type: str) -> str:
    """The media type of a Content-Type value, without parameters, in lower case."""
    return content_type.split(";", 1)[0].strip().lower()


#: http.server's own refusals, as the API's error codes.
_CODES = {
    HTTPStatus.BAD_REQUEST: "invalid_input",
    HTTPStatus.METHOD_NOT_ALLOWED: "method_not_allowed",
    HTTPStatus.REQUEST_TIMEOUT: "request_timeout",
    HTTPStatus.REQUEST_URI_TOO_LONG: "uri_too_long",
    HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE: "headers_too_large",
    HTTPStatus.NOT_IMPLEMENTED: "not_implemented",
    HTTPStatus.HTTP_VERSION_NOT_SUPPORTED: "http_version_not_supported",
}
#: An HTTP method name (RFC 9110's token), of a sensible length.
_METHOD_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}")
#: Statuses that never carry a body (RFC 9110).
_NO_BODY = (HTTPStatus.NO_CONTENT, HTTPStatus.RESET_CONTENT, HTTPStatus.NOT_MODIFIED)


class LocalApiServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], runtime: Runtime) -> None:
        super().__init__(address, _Handler)
        self.runtime = runtime
        self.lock = threading.Lock()
        self.hosts = allowed_hosts(address[0], int(self.server_address[1]))
        self.card = card_web.CardWeb(runtime)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def resolve(self, event: dict[str, Any]) -> dict[str, Any]:
        with self.lock:  # this server's runtime serves one writer (handle also serialises the resolver)
            return resolve_api_event(self.runtime, event)

    def card_page(self, request: card_web.WebRequest) -> card_web.WebResponse:
        with self.lock:  # the card's changes share the API's one writer
            return self.card.handle(request)


def is_loopback(address: str) -> bool:
    """Whether a client address is this machine's (127.0.0.0/8, ::1, or IPv4 mapped into IPv6)."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(parsed, "ipv4_mapped", None)
    return bool(parsed.is_loopback or (mapped is not None and mapped.is_loopback))


def cookies_of(header: str) -> dict[str, str]:
    """A Cookie header's name=value pairs (the first of a repeated name wins)."""
    found: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name and name not in found:
            found[name] = value.strip()
    return found


class _Handler(BaseHTTPRequestHandler):
    server: LocalApiServer
    protocol_version = "HTTP/1.1"

    def _serve(self) -> None:
        if card_web.owns(urlsplit(self.path).path):
            self._serve_card()
            return
        refused = self._framing_refused() or self._caller_refused()
        if refused is not None:
            # Nothing of the body was read, and it cannot be skipped safely: this connection ends here.
            self.close_connection = True
            status, code, message = refused
            payload = json.dumps(error_payload(code, message)).encode()
            self._reply(status, {"Content-Type": "application/json"}, payload)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        event = http_event(self.command, self.path, list(self.headers.items()), body, source_ip=self.client_address[0])
        self._reply(*response_parts(self.server.resolve(event)))

    def _serve_card(self) -> None:
        """A card page: this machine's browser only, the card's own origin for a change, a form body."""
        refused = self._framing_refused() or self._card_caller_refused()
        if refused is not None:
            self.close_connection = True
            status, _, message = refused
            self._reply_card(self.server.card.refusal(status, message))
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        parts = urlsplit(self.path)
        try:
            form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)) if body else {}
            query = dict(parse_qsl(parts.query, keep_blank_values=True, max_num_fields=50))
        except (UnicodeDecodeError, ValueError):
            self._reply_card(
                self.server.card.refusal(HTTPStatus.BAD_REQUEST, "The form could not be read (not UTF-8).")
            )
            return
        session = cookies_of(self.headers.get("Cookie") or "").get(card_web.COOKIE)
        request = card_web.WebRequest(self.command.upper(), parts.path, query, form, session)
        self._reply_card(self.server.card_page(request))

    def _card_caller_refused(self) -> tuple[HTTPStatus, str, str] | None:
        """Who may open the card: a browser on this machine, at this server's name (no DNS
        rebinding). A change (POST) must come from the card's own pages: Origin absent or this
        server's, a same-origin fetch, a form body of a sensible size."""
        host = (self.headers.get("Host") or "").strip().lower()
        if self.server.hosts is not None and host not in self.server.hosts:
            allowed = ", ".join(sorted(self.server.hosts))
            return HTTPStatus.FORBIDDEN, "forbidden", f"Host: {host[:80]!r} is not this server; use one of {allowed}"
        if not is_loopback(self.client_address[0]):
            return HTTPStatus.FORBIDDEN, "forbidden", "The memory card is served to this machine only."
        if self.command.upper() != "POST":
            return None
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{host}":
            return HTTPStatus.FORBIDDEN, "forbidden", "A change to the memory card must come from its own pages."
        site = (self.headers.get("Sec-Fetch-Site") or "same-origin").strip().lower()
        if site not in ("same-origin", "none"):
            return HTTPStatus.FORBIDDEN, "forbidden", "A change to the memory card must come from its own pages."
        given = media_type(self.headers.get("Content-Type") or "")
        if int(self.headers.get("Content-Length") or 0) > 0 and given != "application/x-www-form-urlencoded":
            message = f"Content-Type: {given[:80]!r}; the card's forms send application/x-www-form-urlencoded"
            return HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message
        if int(self.headers.get("Content-Length") or 0) > card_web.MAX_FORM_BYTES:
            return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "payload_too_large", "The form is too large to be the card's."
        return None

    def _reply_card(self, response: card_web.WebResponse) -> None:
        self._reply(response.status, response.all_headers(), response.body)

    def _framing_refused(self) -> tuple[HTTPStatus, str, str] | None:
        """Where the body ends must be beyond doubt, or its bytes would be read as the next
        request (request smuggling): one Content-Length of digits, and no Transfer-Encoding."""
        if self.headers.get_all("Transfer-Encoding"):
            message = "Transfer-Encoding is not supported here; send the body with a Content-Length"
            return HTTPStatus.NOT_IMPLEMENTED, "not_implemented", message
        lengths = {value.strip() for value in self.headers.get_all("Content-Length") or []}
        if len(lengths) > 1:
            return HTTPStatus.BAD_REQUEST, "invalid_input", "Content-Length: given more than once with other values"
        (length,) = lengths or {"0"}
        if not (length.isascii() and length.isdigit()):
            return HTTPStatus.BAD_REQUEST, "invalid_input", f"Content-Length: {length[:40]!r} is not a number of bytes"
        if int(length) > READ_LIMIT_BYTES:
            message = f"body: {int(length):,} bytes; the most this API takes is {MAX_BODY_BYTES:,}"
            return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "payload_too_large", message
        return None

    def _caller_refused(self) -> tuple[HTTPStatus, str, str] | None:
        """Only the backend's own requests: to this server's name (no DNS rebinding), not from
        a web page (a browser sends Origin on a cross-site request; the backend does not), and
        a body only as JSON (a page's form post or no-CORS fetch cannot send that type)."""
        host = (self.headers.get("Host") or "").strip().lower()
        if self.server.hosts is not None and host not in self.server.hosts:
            allowed = ", ".join(sorted(self.server.hosts))
            return HTTPStatus.FORBIDDEN, "forbidden", f"Host: {host[:80]!r} is not this server; use one of {allowed}"
        if self.headers.get("Origin") is not None:
            message = "requests from a web page (with an Origin header) are refused; call this API from a backend"
            return HTTPStatus.FORBIDDEN, "forbidden", message
        if int(self.headers.get("Content-Length") or 0) > 0:
            given = media_type(self.headers.get("Content-Type") or "")
            if given != "application/json":
                message = f"Content-Type: {given[:80]!r}; a body must be sent as application/json"
                return HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message
        return None

    def _reply(self, status: int, headers: dict[str, str], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        if status in _NO_BODY:
            self.end_headers()  # a 304 has no body and no Content-Length of its own
            return
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    # http.server dispatches on ``do_<METHOD>``: every method token reaches the resolver, which
    # answers 405 (with Allow) on a known path for a method it does not route there, and 404
    # elsewhere; CONNECT (no tunnels here) and a method that is not a token reach send_error: 501.
    do_GET = do_POST = do_PATCH = _serve  # noqa: N815

    def __getattr__(self, name: str) -> Any:
        method = name.removeprefix("do_")
        if name.startswith("do_") and method != "CONNECT" and _METHOD_TOKEN.fullmatch(method):
            return self._serve
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a method it does not implement, a malformed request line or
        header) in the API's JSON error shape, never its HTML page; the connection ends."""
        status = HTTPStatus(code)
        if status == HTTPStatus.NOT_IMPLEMENTED and self.command:
            text = f"{self.command[:40]!r} is not supported here; the API takes GET, POST and PATCH"
        else:
            text = message or status.phrase
        self.log_error("code %d, message %s", code, text)
        self.close_connection = True
        self.send_response(code)
        self.send_header("Connection", "close")
        if code < 200 or status in _NO_BODY:
            self.end_headers()
            return
        body = json.dumps(error_payload(_CODES.get(status, status.phrase.lower().replace(" ", "_")), text)).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        # The request line is the caller's text: escape sequences in it must not reach the terminal.
        print(f"{self.address_string()} - {for_terminal(format % args)}", flush=True)


def serve(runtime: Runtime, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> LocalApiServer:
    """A server bound to ``host:port`` (port 0: any free port); call ``serve_forever`` on it."""
    return LocalApiServer((host, port), runtime)
