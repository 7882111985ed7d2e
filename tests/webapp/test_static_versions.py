"""Static URLs carry a digest of the file's content (webapp/staticfiles.py).

The viewer's script and the frames' patch form change together: a page must name the script by a
URL that changes with the script, or a browser holding the old one would misread new frames.
Partitions: a script on the match page and the stylesheet on every page; the URL's digest is the
file's; the versioned URL serves the file; a name no finder has gets no version.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client

from webapp import staticfiles

pytestmark = pytest.mark.django_db

STATIC = staticfiles.Path(staticfiles.__file__).parent / "static"


def sha12(relative: str) -> str:
    return hashlib.sha256((STATIC / relative).read_bytes()).hexdigest()[:12]


def test_match_page_names_the_viewer_by_its_content(client: Client, rated_match) -> None:
    html = client.get(f"/matches/{rated_match.pk}/").content.decode()
    assert f"/static/webapp/js/viewer.js?v={sha12('webapp/js/viewer.js')}" in html
    assert f"/static/webapp/css/site.css?v={sha12('webapp/css/site.css')}" in html


def test_the_versioned_url_serves_the_file(client: Client) -> None:
    html = client.get("/").content.decode()
    url = re.search(r'href="(/static/webapp/css/site\.css\?v=[0-9a-f]{12})"', html)
    assert url, "the stylesheet link has no version"
    body = b"".join(client.get(url.group(1)).streaming_content)
    assert body == (STATIC / "webapp/css/site.css").read_bytes()


def test_a_missing_file_gets_no_version() -> None:
    assert staticfiles.digest("webapp/js/no-such-file.js") == ""
    assert (
        staticfiles.VersionedStaticFilesStorage().url("webapp/js/no-such-file.js")
        == "/static/webapp/js/no-such-file.js"
    )
