"""The Tansu broker for tests: the project's own launcher (``pipeline.local_broker``),
re-exported under the names the test suites use."""

from pipeline.local_broker import TansuBroker, broker_binary, free_port, wait_for_port

__all__ = ["TansuBroker", "broker_binary", "free_port", "wait_for_port"]
