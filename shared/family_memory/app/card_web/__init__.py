"""The memory card as a web page on ``family-memory serve`` (``/families/{id}/card``).

``app``: the routes (each calls one card service); ``pages``: the HTML fragments;
``markup``: escaping and the standard library's templates; ``session``: the forms'
per-session token. ``templates/`` and ``static/`` ship in the package (no build step,
no CDN). docs/card.md describes the page and how it is tested in a real browser.
"""
