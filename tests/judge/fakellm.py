#!/usr/bin/env python3
"""fakellm.py -- a fake OpenAI-compatible chat-completions server for judge's tests.

    python3 fakellm.py --port-file F --log L [--fault-rate R] [--seed S] [--delay SEC]

Listens on 127.0.0.1 on a free port (written to F once it listens) and answers
POST .../chat/completions. Python standard library only.

What it answers is scripted by a marker anywhere in the request's text,
FAKE[key=value;key=value], usually put in an item's question:

  faults=429,500,...  what the 1st, 2nd, ... attempt of this same request gets;
                      later attempts get the answer. Faults:
                        429      429 with Retry-After (ra=SECONDS, default 1)
                        500 503  server errors with a JSON error body
                        401      an error that echoes the Authorization key
                        stall    sleeps 5 s before answering (past the client's timeout)
                        late     sleeps late=SECONDS (default 1.5) before answering: an
                                 answer that comes after a short --timeout
                        drop     closes the connection without a response
                        trunc    announces a longer body than it sends
                        badjson  200 with a body that is not JSON
                        slow     the answer, dribbled out over ~1 s
                        huge     200 with an endless body
  answer=good         (default) a valid answer built from the prompt's schema
  answer=fenced       the valid answer inside prose and a ```json fence
  answer=prose        no JSON at all, every time
  answer=schema       JSON that breaks the schema, every time
  answer=repairok     breaks the schema, but a repair request gets a valid answer
  flaky=1             garbage (prose, no JSON) while the file named by --broken
                      exists, repair requests included; the answer asked for
                      otherwise (a test creates the file, runs, removes it: the
                      same server, so the same cache keys, is then fixed)
  labels=a,b          the labels to give for a label-list criterion
  score=N             the score for integer criteria (default: the maximum)
  score.CRIT=a,b,...  criterion CRIT's score; with several, the N-th for a request
                      whose prompt says "of scene N:" (EduIllustrate's ELQ and VC)
  answer=records      {"records": [...]} with the IR records given by records=R1|R2|...
                      (tikz2ir --fallback=llm's answer form)
  answer=b64          the text base64-decoded from b64=...; with keys b64.WORD=...,
                      the one whose WORD is in the first line of the system message
                      (or in its line starting "You refine")
                      (svg2graph --llm: b64.nodes=...;b64.edges=...), else b64=...
                      (an empty answer when there is none); a repair request gets
                      b64r=... / b64r.WORD=... instead when the marker has such keys

--capacity N with --delay SEC makes an overloaded server: it works on at most
N requests at once, SEC seconds each, and the others wait their turn (after
being logged), so at -j 128 every answer takes about 128 SEC / N seconds.

--fault-rate R gives each attempt without a marker a random fault (429 with
retry-after-ms 50, 500, 503, stall, drop, trunc, badjson) with probability
R, decided by a hash of (seed, request, attempt), so reruns are reproducible.

Every request is logged as one line "key<TAB>attempt<TAB>behaviour<TAB>auth"
(key: SHA-256 of the messages; auth: yes/no, never the key itself). With
--answers FILE, each valid answer the server produces (a 200 chat completion,
also one a client has stopped waiting for) is appended to FILE as one line
"key<TAB>attempt<TAB>behaviour", so a test can count the prompts answered more
than once. With
--capture FILE, each request's body (the JSON judge sent, images and all) is
appended to FILE as one line, so a test can check what was sent.

SketchJudge's answer form (a prompt with the paper's "error_list": [ schema):
{"is_correct": bool=, "error_count": the number of labels= (or count=N),
"error_list": [{"error_type": LABEL, "error_description_en": "fake: LABEL"}]}.
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import re
import socket
import sys
import threading
import time

LOCK = threading.Lock()
SLOTS = None
ATTEMPTS = {}
STATE = {"active": 0, "max_active": 0}


def text_of(messages):
    out = []
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            for p in c:
                if p.get("type") == "text":
                    out.append(p.get("text", ""))
    return "\n".join(out)


def count_images(messages):
    n = 0
    for m in messages:
        c = m.get("content")
        if isinstance(c, list):
            n += sum(1 for p in c if p.get("type") == "image_url")
    return n


def good_answer(messages, opts):
    """A valid answer built from the {{schema}} lines of the prompt."""
    user = [m for m in messages if m.get("role") == "user"]
    txt = text_of(user[:1]) if user else ""
    nimg = count_images(messages)
    ans = {}
    for m in re.finditer(r'^  "([^"]+)": (.*)$', txt, re.M):
        key, spec = m.group(1), m.group(2)
        if spec.startswith('{"answer": true'):
            ans[key] = {"answer": opts.get("bool", "false") == "true", "reason": "fake"}
        elif spec.startswith('{"answer": '):
            first = re.search(r'"answer": "([^"]+)"', spec).group(1)
            ans[key] = {"answer": opts.get("value", first), "reason": "fake reason"}
        elif spec.startswith('{"score": '):
            lo, hi = re.search(r"integer (\S+) to (\S+)>", spec).groups()
            score = opts.get("score", hi)
            if "score." + key in opts:
                # score.CRITERION=a,b,c: this criterion's score, by the
                # scene a request is about ("... of scene N:"), else the first
                vals = opts["score." + key].split(",")
                sc = re.search(r"of scene (\d+):", txt)
                i = int(sc.group(1)) - 1 if sc else 0
                score = vals[min(i, len(vals) - 1)]
            ans[key] = {"score": int(float(score)), "reason": "fake"}
        elif spec.startswith("[<integer"):
            hi = re.search(r"to (\S+)>", spec).group(1)
            n = nimg - 1 if "after the first" in spec else nimg
            ans[key] = [int(float(opts.get("score", hi)))] * max(n, 0)
        elif spec.startswith('["<label'):
            labels = opts.get("labels", "")
            ans[key] = [x for x in labels.split(",") if x]
        elif spec.startswith("[[<predicted"):
            ans[key] = [[1, 1]]
    if re.search(r'^  "error_list": \[$', txt, re.M):
        # SketchJudge's answer (Figure 7 of the paper): the labels of labels=
        # as the error list, error_count its length (count=N overrides it)
        labels = [x for x in opts.get("labels", "").split(",") if x]
        ans = {"is_correct": opts.get("bool", "false") == "true",
               "error_count": int(opts.get("count", len(labels))),
               "error_list": [{"error_type": x, "error_description_en": "fake: " + x}
                              for x in labels]}
    return ans


def answer_text(messages, opts):
    if ARGS.broken and opts.get("flaky") == "1" and os.path.exists(ARGS.broken):
        return "Sorry, I cannot help with that diagram."
    kind = opts.get("answer", "good")
    repair = any(m.get("role") == "assistant" for m in messages)
    good = json.dumps(good_answer(messages, opts))
    if kind == "good":
        return good
    if kind == "fenced":
        return "Let me look at the diagram.\n\n```json\n" + good + "\n```\nDone."
    if kind == "prose":
        return "I think the diagram is fine overall."
    if kind == "schema":
        return json.dumps({"verdict": "maybe"})
    if kind == "repairok":
        return good if repair else json.dumps({"verdict": "maybe"})
    if kind == "b64":
        system = [m for m in messages if m.get("role") == "system"]
        lines = text_of(system[:1]).split("\n") if system else [""]
        # the system message's first line, or its "You refine the ..." line
        first = next((l for l in lines if l.startswith("You refine")), lines[0])
        pre = "b64r" if repair and any(k.split(".")[0] == "b64r" for k in opts) else "b64"
        for k, v in opts.items():
            if k.startswith(pre + ".") and re.search(r"\b" + re.escape(k[len(pre) + 1:]) + r"\b", first):
                return base64.b64decode(v).decode("utf-8", "replace")
        return base64.b64decode(opts.get(pre, "")).decode("utf-8", "replace")
    if kind == "records":
        recs = [r for r in opts.get("records", "").split("|") if r]
        return json.dumps({"records": recs})
    return good


def completion(content):
    return json.dumps({
        "id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
                  "prompt_tokens_details": {"cached_tokens": 10}},
    }).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def answer(self, key, attempt, behaviour, messages, opts):
        """Writes a valid answer, noted in --answers first: the server has
        done the work whether or not the client still listens."""
        body = completion(answer_text(messages, opts))
        if ARGS.answers:
            with LOCK:
                with open(ARGS.answers, "a") as f:
                    f.write(f"{key}\t{attempt}\t{behaviour}\n")
        return body

    def do_POST(self):
        with LOCK:
            STATE["active"] += 1
            STATE["max_active"] = max(STATE["max_active"], STATE["active"])
        try:
            self.handle_post()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with LOCK:
                STATE["active"] -= 1

    def handle_post(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        auth = self.headers.get("Authorization", "")
        try:
            req = json.loads(raw)
            messages = req["messages"]
        except Exception:
            self.send(400, b'{"error":{"message":"bad request"}}')
            return
        key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]
        txt = text_of(messages)
        opts = {}
        m = re.search(r"FAKE\[([^\]]*)\]", txt)
        if m:
            for kv in m.group(1).split(";"):
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    opts[k.strip()] = v.strip()
        with LOCK:
            ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
            attempt = ATTEMPTS[key]
        faults = [f for f in opts.get("faults", "").split(",") if f]
        behaviour = "ok"
        if attempt <= len(faults):
            behaviour = faults[attempt - 1]
        elif not m and ARGS.fault_rate > 0:
            h = hashlib.sha256(f"{ARGS.seed}:{key}:{attempt}".encode()).digest()
            if h[0] / 256.0 < ARGS.fault_rate:
                behaviour = ["429q", "500", "503", "stall", "drop", "trunc", "badjson"][h[1] % 7]
        with LOCK:
            with open(ARGS.log, "a") as f:
                f.write(f"{key}\t{attempt}\t{behaviour}\t{'yes' if auth else 'no'}\n")
            if ARGS.capture:
                with open(ARGS.capture, "a") as f:
                    f.write(json.dumps(req, sort_keys=True, separators=(",", ":")) + "\n")
        if SLOTS is not None:
            with SLOTS:              # an overloaded server: --capacity at a time
                time.sleep(ARGS.delay)
        elif ARGS.delay:
            time.sleep(ARGS.delay)
        if behaviour == "429":
            self.send(429, b'{"error":{"message":"rate limited"}}',
                      [("Retry-After", opts.get("ra", "1"))])
        elif behaviour == "429q":
            self.send(429, b'{"error":{"message":"rate limited"}}',
                      [("Retry-After", "0"), ("retry-after-ms", "50")])
        elif behaviour in ("500", "503"):
            self.send(int(behaviour), b'{"error":{"message":"server trouble"}}')
        elif behaviour == "401":
            tok = auth.replace("Bearer ", "")
            self.send(401, json.dumps({"error": {"message": "Incorrect API key provided: " + tok}}).encode())
        elif behaviour == "stall":
            time.sleep(5)
            self.send(200, self.answer(key, attempt, behaviour, messages, opts))
        elif behaviour == "late":
            time.sleep(float(opts.get("late", "1.5")))
            self.send(200, self.answer(key, attempt, behaviour, messages, opts))
        elif behaviour == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif behaviour == "trunc":
            body = completion(answer_text(messages, opts))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif behaviour == "badjson":
            self.send(200, b'{"choices": [{"message": {"content": "oops"')
        elif behaviour == "slow":
            body = self.answer(key, attempt, behaviour, messages, opts)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            step = max(1, len(body) // 10)
            for i in range(0, len(body), step):
                self.wfile.write(body[i:i + step])
                self.wfile.flush()
                time.sleep(0.1)
        elif behaviour == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"x" * 65536
            piece = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
            self.wfile.write(b'6\r\n{"a":"\r\n')
            for _ in range(100000):
                self.wfile.write(piece)
            self.close_connection = True
        else:
            self.send(200, self.answer(key, attempt, behaviour, messages, opts))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # a client that went away (a killed judge) is not the server's error
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def main():
    global ARGS, SLOTS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--capacity", type=int, default=0,
                    help="work on at most N requests at once, --delay each (the rest wait)")
    ap.add_argument("--stats", help="write max concurrent requests here on SIGTERM")
    ap.add_argument("--answers", help="append 'key attempt behaviour' for each valid answer produced")
    ap.add_argument("--capture", help="append each request's JSON body here, one per line")
    ap.add_argument("--broken", metavar="FILE",
                    help="while FILE exists, requests marked flaky=1 get garbage")
    ARGS = ap.parse_args()
    if ARGS.capacity > 0:
        SLOTS = threading.Semaphore(ARGS.capacity)
    srv = Server(("127.0.0.1", 0), Handler)
    open(ARGS.log, "a").close()
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    import signal
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)

    def stop(*_):
        if ARGS.stats:
            with open(ARGS.stats, "w") as f:
                f.write(f"{STATE['max_active']}\n")
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    srv.serve_forever()


if __name__ == "__main__":
    main()
