"""The leaderboard explains itself, bot names take Unicode letters, and the site's small things (issue 15, finding 4).

Real PostgreSQL, real rated matches through the services, the real views through Django's test
client: provisional versions (fewer than ``PROVISIONAL_GAMES`` rated games) are listed after every
established one and marked; W-D-L is the one order of the site; every abbreviation has a title or a
legend; bot names of any script are accepted and a refused one says which character and why; a
favicon is served; the API docs name no outside host.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.conftest import GAME, client_for, forced_replay
from webapp import results
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.rankings.models import Rating
from webapp.rankings.views import PROVISIONAL_GAMES

pytestmark = pytest.mark.django_db


def play(x: Bot, y: Bot, ranks: tuple[int, int]) -> None:
    m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=True)
    results.do_finish_match(m.pk, forced_replay(m, ranks))


@pytest.fixture
def board(make_bot: Any, author: User, other: User) -> dict[str, Bot]:
    """Two established bots (PROVISIONAL_GAMES rated games each, "weak" losing every one) and a new one."""
    strong, weak, new = make_bot(author, "strong"), make_bot(other, "weak"), make_bot(author, "newcomer")
    for i in range(PROVISIONAL_GAMES):
        play(strong, weak, (1, 2)) if i % 2 else play(weak, strong, (2, 1))
    # One game for the newcomer: a win, so its Elo is above the weak bot's; it still ranks after it.
    play(new, weak, (1, 2))
    return {"strong": strong, "weak": weak, "new": new}


def test_provisional_bots_rank_after_established_ones_and_are_marked(board: dict[str, Bot]) -> None:
    new_rating = Rating.objects.get(bot_version=board["new"].latest_version)
    weak_rating = Rating.objects.get(bot_version=board["weak"].latest_version)
    assert new_rating.games < PROVISIONAL_GAMES <= weak_rating.games
    assert new_rating.elo > weak_rating.elo  # without the rule it would rank above the weak bot

    rows = client_for(None).get("/api/v1/ratings/", {"game": GAME}).json()["results"]
    assert [(r["bot"], r["rank"], r["provisional"]) for r in rows] == [
        ("strong", 1, False),
        ("weak", 2, False),
        ("newcomer", 3, True),
    ]

    page = Client().get(f"/games/{GAME}/").content.decode()
    body = page[page.index("<tbody>") : page.index("</tbody>")]
    order = [m.group(1) for m in re.finditer(r'href="/bots/\d+/">([^<]+)</a>', body)]
    assert order == ["strong", "weak", "newcomer"]
    new_row = body[body.index("newcomer") - 400 : body.index("newcomer") + 400]
    assert 'class="provisional"' in new_row and ">provisional</span>" in new_row
    assert f"fewer than {PROVISIONAL_GAMES} rated games" in page  # the legend states N


def test_w_d_l_is_the_one_order_with_a_legend(board: dict[str, Bot]) -> None:
    weak = Rating.objects.get(bot_version=board["weak"].latest_version)
    assert weak.wins == 0 and weak.losses == PROVISIONAL_GAMES + 1 and weak.draws == 0
    client = Client()
    for url in (f"/games/{GAME}/", f"/bots/{board['weak'].pk}/"):
        page = client.get(url).content.decode()
        assert "W-L-D" not in page and ">W-D-L</abbr>" in page
        assert f"<td>0-0-{PROVISIONAL_GAMES + 1}</td>" in page  # wins-draws-losses
    page = client.get(f"/games/{GAME}/").content.decode()
    # Every header abbreviation has a title.
    for abbr in ("Rating", "±", "W-D-L"):
        assert re.search(rf'<abbr title="[^"]+">{re.escape(abbr)}</abbr>', page), abbr


@pytest.mark.parametrize("name", ["Ülkü", "棋士", "龍", "Зверь", "été-2", "x_y.z"])
def test_bot_names_take_letters_of_any_script(author: User, name: str) -> None:
    api = client_for(author)
    r = api.post("/api/v1/bots/", {"game": GAME, "name": name}, format="json")
    assert r.status_code == 201, r.content
    assert Bot.objects.get(pk=r.json()["bot"]["id"] if "bot" in r.json() else r.json()["id"]).name == name


def test_an_accent_typed_two_ways_is_one_name(author: User, other: User) -> None:
    first = client_for(author).post("/api/v1/bots/", {"game": GAME, "name": "Ren\u00e9"}, format="json")
    assert first.status_code == 201
    again = client_for(other).post("/api/v1/bots/", {"game": GAME, "name": "Rene\u0301"}, format="json")
    assert again.status_code in (400, 409) and "already exists" in again.content.decode()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("ab c", "' ' (U+0020 SPACE)"),
        ("\U0001f916bot", "first character '\U0001f916' (U+1F916 ROBOT FACE)"),
        ("a/b", "'/' (U+002F SOLIDUS)"),
        ("\u200bzz", "U+200B ZERO WIDTH SPACE"),
        ("_x", "first character '_'"),
    ],
)
def test_a_refused_name_says_which_character_and_the_rule(author: User, name: str, says: str) -> None:
    r = client_for(author).post("/api/v1/bots/", {"game": GAME, "name": name}, format="json")
    assert r.status_code == 400
    text = r.content.decode("unicode_escape") if "\\u" in r.content.decode() else r.content.decode()
    assert says in text and "letters (of any script" in text and "does not match" not in text
    assert not Bot.objects.filter(owner=author).exists()  # nothing was written

    page = Client()
    page.force_login(author)
    form = page.post("/me/bots/new/", {"game": GAME, "name": name})
    assert form.status_code == 200 and says in form.content.decode().replace("&#x27;", "'")
    assert not Bot.objects.filter(owner=author).exists()


def test_favicon_and_offline_api_docs() -> None:
    client = Client()
    home = client.get("/").content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', home)
    assert icon is not None
    served = client.get(icon.group(1))
    assert served.status_code == 200 and b"<svg" in b"".join(served.streaming_content)
    legacy = client.get("/favicon.ico")
    assert legacy.status_code == 301 and legacy["Location"] == icon.group(1)
    for url in ("/api/docs/", "/api/redoc/"):
        page = client.get(url).content.decode()
        outside = re.findall(r'(?:href|src)="(https?://[^"]+)"', page)
        assert outside == [], (url, outside)
        assert "fonts.googleapis" not in page
