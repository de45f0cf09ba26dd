"""The SDK's version, kept equal to pyproject.toml's (a unit test checks)."""

VERSION = "0.1.0"
