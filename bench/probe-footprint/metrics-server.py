"""Serves the files of the current directory (an inference server's recorded /metrics) for the probe benchmarks.

Usage: python3 metrics-server.py PORT [keep|close]
  keep (the default): HTTP/1.1, connections kept alive, as TGI's and vLLM's servers do
  close: HTTP/1.0, one connection per request
"""
import http.server
import sys


class Keep(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # python writes the head and the body apart; with Nagle's algorithm the body would wait for the client's
    # delayed ack (40 ms a request), which uvicorn, turning it off, does not
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass


class Close(Keep):
    protocol_version = "HTTP/1.0"


handler = Close if len(sys.argv) > 2 and sys.argv[2] == "close" else Keep
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
