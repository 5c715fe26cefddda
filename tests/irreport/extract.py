#!/usr/bin/env python3
"""tests/irreport/extract.py REPORT.html WHAT -- the numbers an irreport
report shows, as TSV (python3 standard library only).

  kappa      group stat rater-a rater-b value n ci-low ci-high  (the #kappa table,
             the columns and order of kappa's TSV output)
  confusion  group rater-a rater-b stat count: the four counts of kappa's
             confusion statistic (positive class yes) and rated-both,
             summed from each confusion matrix
  cards      one line per gallery card: its id and classes
"""
import sys
from html.parser import HTMLParser


class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []          # (tag, attrs) of the open elements we track
        self.kappa = []          # rows: dict
        self.row = None
        self.cell = None         # (kind, stat) of the cell being read
        self.text = ''
        self.in_kappa = False
        self.cms = []            # [g, a, b, labels, {(r, c): n}]
        self.cm = None
        self.cm_head = False
        self.th_text = None
        self.cards = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get('class') or '').split()
        if tag in ('td', 'th', 'tr', 'span', 'table'):
            self.flush()     # end tags of cells are left out: a new one ends the last
        if tag == 'table' and a.get('id') == 'kappa':
            self.in_kappa = True
        if self.in_kappa and tag == 'tr' and 'data-g' in a:
            self.row = {'g': a['data-g'], 'a': a['data-a'], 'b': a['data-b']}
            self.kappa.append(self.row)
        if self.in_kappa and self.row is not None and tag == 'td':
            self.flush()
            if 'n' in cls:
                self.cell = ('n', None)
            elif 'v' in cls:
                self.cell = ('v', a.get('data-s'))
            elif 'ci' in cls:
                self.cell = ('ci', a.get('data-s'))
            else:
                self.cell = None
            self.text = ''
        if self.in_kappa and tag == 'td' and 'ci' in cls:
            self.ci_stat = a.get('data-s')
        if self.in_kappa and tag == 'span' and ('lo' in cls or 'hi' in cls):
            self.cell = ('lo' if 'lo' in cls else 'hi', self.ci_stat)
            self.text = ''
        if tag == 'div' and 'cm' in cls:
            self.cm = [a['data-g'], a['data-a'], a['data-b'], [], {}]
            self.cms.append(self.cm)
            self.cm_row = 0
        if self.cm is not None and tag == 'td' and 'data-r' in a:
            self.flush()
            self.cell = ('m', (int(a['data-r']), int(a['data-c'])))
            self.text = ''
        if self.cm is not None and tag == 'tr':
            self.cm_head = not self.cm[3] and self.cm_row == 0
            self.cm_row += 1
        if self.cm is not None and tag == 'th' and self.cm_head:
            self.flush()
            self.cell = ('label', None)
            self.text = ''
        if tag == 'article' and 'card' in cls:
            self.cards.append((a.get('id', ''), ' '.join(c for c in cls if c != 'card')))

    def flush(self):
        if not self.cell:
            return
        kind, s = self.cell
        t = self.text.strip()
        if kind == 'n':
            self.row['n'] = t
        elif kind == 'v':
            self.row[s] = t
        elif kind in ('lo', 'hi'):
            self.row[s + kind] = t
        elif kind == 'm':
            self.cm[4][s] = int(t)
        elif kind == 'label':
            self.cm[3].append(t)
        self.cell = None

    def handle_endtag(self, tag):
        if tag in ('td', 'span', 'th', 'tr'):
            self.flush()
        if tag == 'table' and self.in_kappa:
            self.flush()
            self.in_kappa = False
            self.row = None
        if tag == 'table' and self.cm is not None:
            self.flush()
            self.cm[3] = self.cm[3][1:-1]       # drop the corner and the sum
            self.cm = None

    def handle_data(self, data):
        if self.cell:
            self.text += data


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    p = P()
    with open(sys.argv[1], encoding='utf-8') as f:
        p.feed(f.read())
    p.close()
    what = sys.argv[2]
    out = []
    if what == 'kappa':
        print('group\tstat\trater-a\trater-b\tvalue\tn\tci-low\tci-high')
        # kappa's order: group, then statistic, then pair
        groups = []
        for r in p.kappa:
            if r['g'] not in groups:
                groups.append(r['g'])
        for g in groups:
            for s in ('agreement', 'cohen'):
                for r in p.kappa:
                    if r['g'] == g:
                        print('\t'.join([g, s, r['a'], r['b'], r[s], r['n'],
                                         r.get(s + 'lo', 'NA'), r.get(s + 'hi', 'NA')]))
    elif what == 'confusion':
        print('group\tstat\trater-a\trater-b\tvalue')
        for g, a, b, labels, m in p.cms:
            k = len(labels)
            yes = labels.index('yes') if 'yes' in labels else -1
            tp = fp = fn = tn = 0
            for (i, j), n in m.items():
                if i == yes and j == yes:
                    tp += n
                elif j == yes:
                    fp += n
                elif i == yes:
                    fn += n
                else:
                    tn += n
            for s, v in (('tp', tp), ('fp', fp), ('fn', fn), ('tn', tn),
                         ('rated-both', sum(m.values()))):
                print('\t'.join([g, s, a, b, str(v)]))
            assert k * k == len(m), (g, a, b)
    elif what == 'cards':
        for i, c in p.cards:
            print(i + '\t' + c)
    else:
        sys.exit(__doc__)


main()
