"""pngsize.py CAPTURE -- for each request body fakellm.py --capture wrote (one
JSON object a line), one line: the images of its messages, in order, as
WIDTHxHEIGHT (the base64 data decoded, the PNG signature and IHDR checked) or
NOTPNG, space-separated; "-" for a request without images."""
import base64, json, struct, sys

for line in open(sys.argv[1]):
    req = json.loads(line)
    out = []
    for m in req["messages"]:
        c = m.get("content")
        if not isinstance(c, list):
            continue
        for p in c:
            if p.get("type") != "image_url":
                continue
            url = p["image_url"]["url"]
            head, _, data = url.partition(",")
            raw = base64.b64decode(data, validate=True)
            if head != "data:image/png;base64" or raw[:8] != b"\x89PNG\r\n\x1a\n" or raw[12:16] != b"IHDR":
                out.append("NOTPNG")
                continue
            w, h = struct.unpack(">II", raw[16:24])
            out.append("%dx%d" % (w, h))
    print(" ".join(out) if out else "-")
