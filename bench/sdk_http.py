"""The SDK's Streamable HTTP app for bench/tools_server.py, under uvicorn:

    python bench/sdk_http.py PORT

The same file as mcp_ref serves (tests/testdata/sdk_launcher.py maps its imports onto
the SDK), served statelessly with JSON answers: the SDK's fastest settings.
"""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "testdata"))

import sdk_launcher  # noqa: E402,F401  (installs the mcp_ref stand-in)
import uvicorn  # noqa: E402

if __name__ == "__main__":
    server = runpy.run_path(os.path.join(HERE, "tools_server.py"))["mcp"]
    app = server.streamable_http_app(stateless_http=True, json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
