"""Test doubles and servers shared by the tests (imported as ``support.*``)."""
