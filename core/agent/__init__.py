"""The ReAct agent: a bounded loop over the LLM and the tool client, streaming its answer."""

from core.agent.loop import Agent
from core.agent.types import AgentEvent, AgentResult, AgentStep, LLMRound, ReplyTimeout

__all__ = ["Agent", "AgentEvent", "AgentResult", "AgentStep", "LLMRound", "ReplyTimeout"]
