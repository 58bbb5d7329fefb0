"""``five-towers serve``: a local web page to play any game against the agents, or watch them play.

:mod:`~five_towers_env.web.tables` holds the games (no web library), :mod:`~five_towers_env.web.hints` reads a
search agent's values for the hints, :mod:`~five_towers_env.web.thinkers` runs the agents' decisions in threads,
:mod:`~five_towers_env.web.access` says who may ask (the ``Host`` check, the token), and
:mod:`~five_towers_env.web.app` is the server (Starlette and uvicorn, the ``web`` extra); the page is ``static/``
in this package: no build step, nothing fetched from elsewhere.
Importing this package imports none of its modules, so no other command loads the web stack.
"""
