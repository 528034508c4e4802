"""The SDK is released with the moltgate binary: its version is the binary's."""

import glob
import os
import re
import tomllib
import unittest

import moltgate

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(SDK))


def binary_version():
    """The Version constant of package main in cmd/moltgate, wherever its files put it."""
    found = set()
    for path in glob.glob(os.path.join(REPO, "cmd", "moltgate", "*.go")):
        if path.endswith("_test.go"):
            continue
        with open(path, encoding="utf-8") as f:
            found.update(re.findall(r'^const Version = "([^"]+)"', f.read(), re.M))
    return found


class VersionTest(unittest.TestCase):
    def test_sdk_version_is_the_binarys(self):
        self.assertEqual(binary_version(), {moltgate.__version__})

    def test_pyproject_says_the_same(self):
        with open(os.path.join(SDK, "pyproject.toml"), "rb") as f:
            self.assertEqual(tomllib.load(f)["project"]["version"], moltgate.__version__)


if __name__ == "__main__":
    unittest.main()
