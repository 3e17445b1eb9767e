"""A WebSocket reader for the bench scripts (standard library only): opens
taw web's /ws with its token and reads frames."""
import base64
import os
import socket


class WebSocket:
    def __init__(self, port, token):
        self.sock = socket.create_connection(("127.0.0.1", int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        self.buffer = self.buffer.split(b"\r\n\r\n", 1)[1]

    def read_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def frame(self):
        """The next frame: its opcode and payload."""
        head = self.read_exact(2)
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(self.read_exact(2), "big")
        elif length == 127:
            length = int.from_bytes(self.read_exact(8), "big")
        return head[0] & 0x0F, self.read_exact(length)

    def wait_for(self, mark):
        """Reads frames until a text frame holds `mark`."""
        while True:
            opcode, payload = self.frame()
            if opcode == 1 and mark in payload:
                return

    def close(self):
        self.sock.close()
