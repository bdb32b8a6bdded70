#!/usr/bin/env python3
"""Publican/DocBook HTML pages -> one groff -ms document (headings, paragraphs, lists, code)."""
import html, re, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.out=[]; s.buf=''; s.mode=None; s.depth=0; s.skip=0; s.pre=0
    def flush(s):
        t=re.sub(r'\s+',' ',s.buf).strip(); s.buf=''
        if not t: return
        t=t.replace('\\','\\e')
        if t[0] in ".'": t='\\&'+t
        if s.mode in ('h2','h3','h4'):
            lvl={'h2':1,'h3':2,'h4':3}[s.mode]
            s.out.append(f'.SH {lvl}\n{t}')
        elif s.mode=='li': s.out.append(f'.IP \\(bu 3\n{t}')
        else: s.out.append(f'.PP\n{t}')
    def handle_starttag(s,tag,a):
        a=dict(a); c=a.get('class','')
        if (tag in('ul',) and 'docnav' in c) or a.get('id')=='title' or 'toc' in c or tag=='title': s.skip+=1; s.skiptag=tag; s.sk=[tag]; return
        if s.skip: 
            if tag==s.skiptag: s.sk.append(tag)
            return
        if tag=='pre': s.flush(); s.pre=1; return
        if tag in('h1','h2','h3','h4','h5'): s.flush(); s.mode=tag if tag!='h5' else 'h4'
        elif tag=='li': s.flush(); s.mode='li'
        elif tag in('p','div') and ('para' in c or tag=='p'): s.flush(); s.mode='p'
    def handle_endtag(s,tag):
        if s.skip:
            if tag==s.skiptag:
                s.sk.pop()
                if not s.sk: s.skip=0
            return
        if tag=='pre':
            lines=[l.replace('\\','\\e') for l in s.buf.strip('\n').split('\n')][:25]
            s.buf=''; s.pre=0
            s.out.append('.DS L\n.ft CW\n.ps 8\n'+'\n'.join('\\&'+l for l in lines)+'\n.ps\n.ft\n.DE')
            return
        if tag in('h1','h2','h3','h4','h5','li','p','div') : s.flush(); s.mode=None
    def handle_data(s,d):
        if s.skip: return
        s.buf+=d

print('.nr PS 10\n.nr VS 12\n.nr HM 1i\n.nr FM 1i\n.ds CH\n.ds CF - % -')
title=sys.argv[1]
print(f'.TL\n{title}\n')
for f in sys.argv[2:]:
    p=P(); p.feed(open(f,encoding='utf-8').read()); p.flush()
    for o in p.out:
        # h1/h2 numbered titles from the HTML already carry their numbers
        print(o.replace('.SH 1','.SH').replace('.SH 2','.SH').replace('.SH 3','.SH'))
