import re
import socket
import struct
import threading
import unittest

from moltgate import protocol as p


class FrameTest(unittest.TestCase):
    def test_frame_is_big_endian_length_then_json(self):
        frame = p.encode_frame(b'{"v":1}')
        self.assertEqual(frame, b"\x00\x00\x00\x07" + b'{"v":1}')

    def test_empty_and_oversize_frames_are_refused(self):
        with self.assertRaises(p.FrameError):
            p.encode_frame(b"")
        with self.assertRaisesRegex(p.FrameError, "exceeds the limit of 4 bytes"):
            p.encode_frame(b"12345", limit=4)

    def test_reader_reassembles_short_reads(self):
        a, b = socket.socketpair()
        with a, b:
            frames = [p.encode(p.envelope("agent.pong", {"n": i})) for i in range(3)]
            data = b"".join(frames)

            def trickle():
                for i in range(len(data)):
                    a.sendall(data[i:i + 1])
                a.shutdown(socket.SHUT_WR)

            t = threading.Thread(target=trickle)
            t.start()
            r = p.FrameReader(b)
            got = [p.decode(r.read())["payload"]["n"] for _ in range(3)]
            with self.assertRaisesRegex(EOFError, "the connection ended$"):
                r.read()
            t.join()
        self.assertEqual(got, [0, 1, 2])

    def test_reader_refuses_a_frame_over_its_limit_unread(self):
        a, b = socket.socketpair()
        with a, b:
            a.sendall(struct.pack(">I", 70000))
            with self.assertRaisesRegex(p.FrameError, "70000 bytes exceeds the limit of 65536"):
                p.FrameReader(b, p.HANDSHAKE_FRAME_BYTES).read()

    def test_connection_ending_inside_a_frame(self):
        a, b = socket.socketpair()
        with a, b:
            a.sendall(struct.pack(">I", 10) + b'{"v"')
            a.shutdown(socket.SHUT_WR)
            with self.assertRaisesRegex(EOFError, "inside a frame"):
                p.FrameReader(b).read()


class EnvelopeTest(unittest.TestCase):
    def test_envelope_fields(self):
        m = p.envelope("agent.tool.result", {"call_id": "c"}, request_id="r", correlation_id="", in_reply_to=None)
        self.assertEqual(list(m), ["v", "type", "id", "ts", "request_id", "payload"])
        self.assertEqual(m["v"], 1)
        self.assertRegex(m["id"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertRegex(m["ts"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_encoding_is_compact_utf8(self):
        self.assertEqual(p.dumps({"a": "é", "b": [1, 2]}), '{"a":"é","b":[1,2]}'.encode())

    def test_values_json_cannot_carry_are_refused(self):
        for bad in ({"x": float("nan")}, {"x": "\ud800"}, {"x": object()}):
            with self.assertRaises(ValueError):
                p.dumps(bad)

    def test_decode_is_strict(self):
        cases = {
            b'{"v":1,"type":"t","id":"i","id":"j"}': "named twice",
            b'{"v":1,"type":"t","id":"i","payload":{"x":NaN}}': "not JSON",
            b"\xff": "UTF-8",
            b"[1]": "not a JSON object",
            b'{"v":2,"type":"t","id":"i"}': "version 2",
            b'{"v":1,"id":"i"}': "lacks type",
            b'{"v":1,"type":"t"}': "lacks id",
            b'{"v":1,"type":"t","id":"i","payload":[]}': "payload is not a JSON object",
            b'{"v":1,"type":"t","id":"i"} x': "not valid JSON",
        }
        for frame, why in cases.items():
            with self.subTest(frame=frame):
                with self.assertRaisesRegex(p.FrameError, re.escape(why)):
                    p.decode(frame)

    def test_decode_fills_an_absent_payload(self):
        m = p.decode(b'{"v":1,"type":"agent.pong","id":"i","ts":"x","payload":null,"extra":1}')
        self.assertEqual(m["payload"], {})
        self.assertEqual(m["extra"], 1)  # unknown members are ignored, not refused


if __name__ == "__main__":
    unittest.main()
