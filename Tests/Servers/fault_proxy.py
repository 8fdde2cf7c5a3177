#!/usr/bin/env python3
"""A TCP relay in front of the tests' web server that breaks connections the way networks do.

Usage: fault_proxy.py MODE UPSTREAM_PORT [BYTES [PEAK_FILE]]; it listens on a free port of 127.0.0.1 and prints it.
  relay  passes everything through;
  drop   closes each connection once BYTES have gone to the client (a connection reset mid-file: the client must
         resume with a range request);
  stall  accepts connections and never answers (a server slower than any timeout);
  hang   passes BYTES of each answer, then holds the connection open and sends nothing more (a server that goes
         quiet mid-file);
  slow   passes everything through, each request BYTES milliseconds late (a distant server), and writes the most
         connections it has had open at once to PEAK_FILE.
It stops when its standard input closes (the test that started it is gone) or when killed.
"""
import socket
import sys
import threading
import time


open_connections = 0
peak = 0
count_lock = threading.Lock()


def count(change, peak_file):
    global open_connections, peak
    with count_lock:
        open_connections += change
        if open_connections > peak:
            peak = open_connections
            with open(peak_file, "w") as file:
                file.write(str(peak))


def pipe(source, target, limit=None, delay=0.0):
    sent = 0
    try:
        while True:
            data = source.recv(65536 if limit is None else min(65536, limit - sent))
            if not data:
                break
            time.sleep(delay)
            target.sendall(data)
            sent += len(data)
            if limit is not None and sent >= limit:
                break
    except OSError:
        pass
    for end in (source, target):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        end.close()


def serve(client, mode, upstream_port, limit, peak_file):
    if mode == "slow":
        count(1, peak_file)
        try:
            upstream = socket.create_connection(("127.0.0.1", upstream_port))
            threading.Thread(target=pipe, args=(client, upstream, None, limit / 1000), daemon=True).start()
            pipe(upstream, client)
        finally:
            count(-1, peak_file)
        return
    if mode == "stall":
        try:
            while client.recv(65536):
                pass
        except OSError:
            pass
        client.close()
        return
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    if mode == "hang":
        sent = 0
        try:
            while sent < limit:
                data = upstream.recv(min(65536, limit - sent))
                if not data:
                    break
                client.sendall(data)
                sent += len(data)
            time.sleep(3600)
        except OSError:
            pass
        return
    pipe(upstream, client, limit if mode == "drop" else None)


def main():
    mode, upstream_port = sys.argv[1], int(sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 32768
    peak_file = sys.argv[4] if len(sys.argv) > 4 else None
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)

    def accept():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client, mode, upstream_port, limit, peak_file), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
