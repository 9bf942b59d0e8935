"""The test apps' own tools, shared by `openai_client.py` and
`anthropic_client.py` (each imports this file from its own directory)."""


def get_weather(city, unit="celsius"):
    """The app's own tool."""
    return "18 °C and sunny" if city == "Paris" else "unknown"


def run_tool(name, arguments):
    """The app's tools by name; a call of another tool (a recording's
    `get_time`) gets a fixed answer, so a loop goes on to its second turn."""
    if name == "get_weather":
        return get_weather(**arguments)
    return f"{name}: done"
