"""Run a stdio server and record every line that passes, both ways.

    python testdata/frame_tap.py LOG COMMAND [ARG...]

Each line the client writes goes to the server's stdin and into LOG as
``> line``; each line the server writes goes to our stdout and into LOG as
``< line``.  The server's stderr is ours.  For comparing the frames of two
servers under the same client (test_context.py's interoperability tests).
"""

import subprocess
import sys
import threading


def main() -> int:
    log_path, command = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    log = open(log_path, "wb", buffering=0)
    lock = threading.Lock()

    def record(mark: bytes, line: bytes) -> None:
        with lock:
            log.write(mark + line.rstrip(b"\n") + b"\n")

    def to_server() -> None:
        for line in sys.stdin.buffer:
            record(b"> ", line)
            try:
                child.stdin.write(line)  # type: ignore[union-attr]
                child.stdin.flush()  # type: ignore[union-attr]
            except OSError:
                break
        try:
            child.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass

    threading.Thread(target=to_server, daemon=True).start()
    for line in child.stdout:  # type: ignore[union-attr]
        record(b"< ", line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
