"""Every example of the SDK's "Structured output" page, as one mcp_ref server.

    python -m mcp_ref list examples/weather.py
    python -m mcp_ref call examples/weather.py get_weather city=London

The same file runs on the official SDK by changing the import to
``from mcp.server import MCPServer`` (and ``Field`` to pydantic's).
"""

import json
import os
import sys
from dataclasses import dataclass
from typing import Annotated, TypedDict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import Field, MCPServer  # noqa: E402

mcp = MCPServer("Weather", instructions="Weather readings for a few cities.")

READINGS = {"London": 17, "Cairo": 34, "Reykjavik": 4}
PRECISE = {"London": 16.2, "Cairo": 34.1, "Reykjavik": 4.4}
UPSTREAM = {"London": '{"temperature": 16.2, "conditions": "Overcast"}'}


@dataclass
class WeatherData:
    temperature: Annotated[float, Field(description="Degrees Celsius.")]
    humidity: Annotated[float, Field(description="Relative humidity, 0 to 1.")]
    conditions: str


class WeatherDict(TypedDict):
    temperature: float
    humidity: float
    conditions: str


class Station:
    def __init__(self, name: str, online: bool):
        self.name = name
        self.online = online


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city, in whole degrees Celsius."""
    return READINGS[city]


@mcp.tool()
def get_weather(city: str) -> WeatherData:
    """Current weather for a city."""
    return WeatherData(temperature=16.2, humidity=0.83, conditions="Overcast")


@mcp.tool()
def get_weather_dict(city: str) -> WeatherDict:
    """Current weather for a city, as a TypedDict."""
    return WeatherDict(temperature=16.2, humidity=0.83, conditions="Overcast")


@mcp.tool()
def get_forecast(city: str, days: int) -> list[WeatherData]:
    """Daily forecast for a city."""
    return [WeatherData(temperature=16.2 + day, humidity=0.83, conditions="Overcast") for day in range(days)]


@mcp.tool()
def get_temperatures(cities: list[str]) -> dict[str, float]:
    """Current temperature for each city, in degrees Celsius."""
    return {city: PRECISE[city] for city in cities}


@mcp.tool()
def get_weather_upstream(city: str) -> WeatherData:
    """Current weather for a city, from an upstream service that lost a field."""
    return json.loads(UPSTREAM[city])


@mcp.tool(structured_output=False)
def weather_report(city: str) -> str:
    """A human-readable weather report for a city."""
    return f"{city}: 17 degrees, overcast, light rain easing by evening."


@mcp.tool()
def get_station(name: str) -> Station:
    """Look up a weather station by name."""
    return Station(name=name, online=True)


if __name__ == "__main__":
    mcp.run()
