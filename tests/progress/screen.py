#!/usr/bin/env python3
"""screen.py FILE -- what a terminal shows for the bytes in FILE.

Understands what the progress line writes: carriage return (back to column
0), "ESC [ K" (erase to the end of the line) and newline; every other byte
is a character put at the cursor. Prints the lines as they are left on the
screen; a last line without a newline ends with "<cursor>"."""
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)

data = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
lines, cur, col, i = [], [], 0, 0
while i < len(data):
    if data.startswith('\033[K', i):
        del cur[col:]
        i += 3
        continue
    ch = data[i]
    if ch == '\r':
        col = 0
    elif ch == '\n':
        lines.append(''.join(cur))
        cur, col = [], 0
    else:
        if col < len(cur):
            cur[col] = ch
        else:
            cur.append(ch)
        col += 1
    i += 1
for line in lines:
    print(line)
if cur:
    print(''.join(cur) + '<cursor>')
