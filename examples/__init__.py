"""Examples of bots for Brawl Ladder (Python SDK bots and a Node.js bot)."""
