"""Run every scenario of the Gherkin features in this folder."""

from pytest_bdd import scenarios

scenarios(".")
