"""API of author notifications: a bot's webhooks, and its events as a long-poll feed.

Only the bot's author reads or changes these (others get 404, so bot ids reveal nothing more).
"""

from __future__ import annotations

import time
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp import longpoll
from webapp.api import bounded_int
from webapp.bots.models import Bot
from webapp.notifications import services
from webapp.notifications.models import BotEvent, EventKind, Webhook

FEED_LIMIT = 100
"""Events per answer of the feed."""
MAX_WAIT_S = 25
"""Longest a feed request waits for a new event (under common proxies' 30 s idle timeout)."""
POLL_S = 0.5
"""How often a waiting feed request looks for new events."""


class WebhookSerializer(serializers.ModelSerializer[Webhook]):
    """A webhook as its author sees it, secret included (the receiver needs it to check signatures)."""

    class Meta:
        model = Webhook
        fields = ["id", "bot", "url", "events", "active", "secret", "created"]  # noqa: RUF012
        read_only_fields = ["id", "bot", "secret", "created", "active"]  # noqa: RUF012


class WebhookCreateSerializer(serializers.Serializer[dict[str, Any]]):
    """A new receiver: its URL and the event kinds it wants (all when empty)."""

    # Not trimmed: the services refuse whitespace anywhere rather than guess what was meant.
    url = serializers.CharField(max_length=500, trim_whitespace=False)
    events = serializers.ListField(child=serializers.ChoiceField(choices=EventKind.choices), required=False)


class EventSerializer(serializers.ModelSerializer[BotEvent]):
    """One notification."""

    class Meta:
        model = BotEvent
        fields = ["id", "bot", "kind", "payload", "created"]  # noqa: RUF012


def _own_bot(request: Request, bot_id: int) -> Bot:
    return get_object_or_404(Bot, pk=bot_id, owner_id=request.user.pk)


class WebhookListView(APIView):
    """``GET``: the bot's webhooks; ``POST``: add one (a fresh secret is made)."""

    permission_classes = [permissions.IsAuthenticated]  # noqa: RUF012

    @extend_schema(responses=WebhookSerializer(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _own_bot(request, bot_id)
        return Response(WebhookSerializer(bot.webhooks.order_by("id"), many=True).data)

    @extend_schema(request=WebhookCreateSerializer, responses={201: WebhookSerializer})
    def post(self, request: Request, bot_id: int) -> Response:
        bot = _own_bot(request, bot_id)
        body = WebhookCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        hook = services.do_create_webhook(bot, body.validated_data["url"], body.validated_data.get("events"))
        return Response(WebhookSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    """``DELETE``: remove a webhook and its delivery log."""

    permission_classes = [permissions.IsAuthenticated]  # noqa: RUF012

    @extend_schema(responses={204: None})
    def delete(self, request: Request, webhook_id: int) -> Response:
        hook = get_object_or_404(Webhook, pk=webhook_id, bot__owner_id=request.user.pk)
        services.do_delete_webhook(hook)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EventFeedView(APIView):
    """The bot's events after ``after`` (an event id), oldest first; with ``wait`` (seconds, at most
    25) the request is held until an event arrives or the time is up (long poll), when a waiting slot
    of the process is free (``webapp.longpoll``); otherwise it answers at once with ``Retry-After``."""

    permission_classes = [permissions.IsAuthenticated]  # noqa: RUF012

    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, description="last event id seen (0: from the start)"),
            OpenApiParameter("wait", int, description=f"seconds to wait for a new event, 0 to {MAX_WAIT_S}"),
        ],
        responses=EventSerializer(many=True),
    )
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _own_bot(request, bot_id)
        after = bounded_int(request.query_params.get("after"), "after", default=0, low=0)
        wait = bounded_int(request.query_params.get("wait"), "wait", default=0, low=0, high=MAX_WAIT_S)
        with longpoll.wait_slot(wait) as granted:
            deadline = time.monotonic() + granted
            while True:
                rows = list(BotEvent.objects.filter(bot=bot, id__gt=after).order_by("id")[:FEED_LIMIT])
                if rows or time.monotonic() >= deadline:
                    break
                # Each query sees what committed since (PostgreSQL's read committed), so polling finds it.
                time.sleep(POLL_S)
        last = rows[-1].pk if rows else after
        response = Response({"events": EventSerializer(rows, many=True).data, "last": last})
        if longpoll.refused(wait, granted) and not rows:
            # Every waiting slot of this process is taken: the client asks again later instead of waiting here.
            response["Retry-After"] = str(longpoll.RETRY_AFTER_SECONDS)
        return response


def feed_payload(rows: list[Any]) -> list[dict[str, Any]]:
    """Serialized events (for pages that show the same feed)."""
    return list(EventSerializer(rows, many=True).data)
