"""Moved to :mod:`referee.protocol.codec` (the protocol layer server and SDK share); kept for old imports."""

from referee.protocol.codec import *  # noqa: F403
from referee.protocol.codec import event_from, outcome_from, payload_data  # noqa: F401
