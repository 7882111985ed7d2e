"""Rules, scenario and conformance tests of the Super Fantasy Brawl engine."""
