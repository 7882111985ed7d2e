"""Template tags that add the hosted-bot panels to pages owned by other apps, for the author only.

``{% hosted_panel bot %}`` on the bot page (the upload form and the versions), and
``{% hosted_match_logs match %}`` on the match page (the author's hosted runs during the match).
Both render nothing for anyone but the bot's author, so the pages' views need no change.
"""

from __future__ import annotations

from typing import Any

from django import template

from webapp.hosting import pages, services

register = template.Library()


@register.inclusion_tag("hosting/bot_panel.html", takes_context=True)
def hosted_panel(context: template.Context, bot: Any) -> dict[str, Any]:
    """The upload form and the hosted versions of ``bot``, if the viewer is its author."""
    request = context.get("request")
    return pages.bot_panel(getattr(request, "user", None), bot, context.get("csrf_token"))


@register.inclusion_tag("hosting/match_logs.html", takes_context=True)
def hosted_match_logs(context: template.Context, match: Any) -> dict[str, Any]:
    """The viewer's own hosted runs during ``match`` (stdout/stderr and how each ended); nothing for others."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"runs": []}
    return {"runs": services.match_logs(user, match.pk), "limit": services.MATCH_LOG_CHARS}
