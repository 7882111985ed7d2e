"""Hosted bots (issue 16): authors upload a bot and the service runs it, sandboxed, on the ladder.

- :mod:`workers.hosting.sandbox` starts one bot process inside bubblewrap with no network, a
  read-only root made only of what a bot needs, a private ``/tmp``, a uid of its own and resource
  limits, and names how it ended (crash, out of memory, process limit, CPU limit).
- :mod:`workers.hosting.proxy` serves the referee's bot port on a Unix socket bound into the
  sandbox: the only way out of it.
- :mod:`workers.hosting.upload` runs an upload's import check in the sandbox; the checks that run
  nothing (size, layout, syntax) and the storage under its SHA-256 are the web app's
  (``webapp.hosting.checks``).
- :mod:`workers.hosting.seccomp` builds the system-call filter bubblewrap installs for each bot.
- :mod:`workers.hosting.host` is ``brawl host``: it keeps hosted versions connected and restarts
  or stops them, in bubblewrap here or (``--mode k8s``) as pods through
  :mod:`workers.hosting.k8s`.

The package lives in ``workers/`` rather than ``referee/`` because the host reads which versions to
run from the web app's database (``workers`` may import ``webapp`` models; ``referee`` may not),
while the sandbox and the proxy themselves import neither Django nor the referee.
"""
