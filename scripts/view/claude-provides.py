#!/usr/bin/env python3
# Issue #32's differential check: for every plugin root of the corpus (CORPUS, one folder per
# repository), the components `ahpls list --targets claude-code` says Claude Code loads must equal
# those `claude plugin validate <manifest> --json` reports it provides. Validate outputs are cached
# in VALDIR (one <repo>__<path>.json per .claude-plugin/plugin.json); missing ones are produced.
#   CORPUS=/work/corpus AHPLS=/tmp/ahpls CLAUDE=.../claude python3 scripts/view/claude-provides.py
import json, subprocess, sys, os, collections
corpus=os.environ.get('CORPUS','/work/corpus')
valdir=os.environ.get('VALDIR','/tmp/ccval')
ahpls=os.environ.get('AHPLS','ahpls')
C=os.environ.get('CLAUDE','claude')
env=dict(os.environ, HOME=os.environ.get('SCRATCH_HOME','/tmp/vhome'), DISABLE_AUTOUPDATER='1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC='1')
os.makedirs(valdir, exist_ok=True)
roots=[]
for repo in sorted(os.listdir(corpus)):
    for dp, dns, fns in os.walk(os.path.join(corpus, repo)):
        dns[:] = [d for d in dns if d not in ('.git', 'node_modules')]
        if dp.endswith('/.claude-plugin') and 'plugin.json' in fns:
            roots.append(os.path.relpath(os.path.join(dp, 'plugin.json'), corpus))
roots.sort()
for m in roots:
    vf=os.path.join(valdir, m.replace('/','__')+'.json')
    if not os.path.exists(vf):
        with open(vf,'w') as out:
            subprocess.run([C,'plugin','validate',os.path.join(corpus,m),'--json'],stdout=out,stderr=subprocess.DEVNULL,env=env,timeout=120)
views={}
tot=collections.Counter(); agree=collections.Counter(); diffs=[]
for m in roots:
    repo, rel = m.split('/',1)
    if repo not in views:
        out=subprocess.run([ahpls,'list','--targets','claude-code','--format','json',os.path.join(corpus,repo)],capture_output=True,text=True)
        views[repo]=json.loads(out.stdout)
    v=views[repo]['consumers'][0]['items']
    plug=[i for i in v if i['category']=='plugins' and i['source']==rel]
    vf=os.path.join(valdir, m.replace('/','__')+'.json')
    try: d=json.load(open(vf))
    except Exception as e:
        print('NOVALIDATE',m,e); continue
    if d.get('provides') is None:
        # validate prints no "provides" when a component has errors: nothing to compare
        tot['noprovides']+=1; print('NO-PROVIDES', m, [c['file'].split(repo+'/')[-1] for c in d.get('contents',[]) if c.get('errors')][:4]); continue
    prov=d.get('provides') or {}
    mine=collections.defaultdict(list)
    if plug:
        p=plug[0]
        for c in p.get('components',[]):
            if c['status']!='loads': continue
            n=c['name'].lstrip('/')
            if c['category']=='hooks': n=c['name']
            if c['category']=='mcpServers': n=n.split(':',1)[1]
            mine[c['category']].append(n)
    theirs={'skills':prov.get('skills',[]) or [], 'commands':prov.get('commands',[]) or [], 'agents':prov.get('agents',[]) or [],
            'hooks':[h['event'] for h in prov.get('hooks',[]) or []], 'mcpServers':[s['name'] for s in prov.get('mcpServers',[]) or []]}
    if d.get('manifest',{}).get('errors'):
        theirs={k:[] for k in theirs}  # the manifest itself fails: Claude Code does not load the plugin
    for k in theirs:
        a=sorted(mine.get(k,[])); b=sorted(theirs[k])
        tot[k]+=1; tot['n_'+k]+=len(b)
        if a==b: agree[k]+=1
        else: diffs.append((m,k,sorted(set(a)-set(b))[:5],sorted(set(b)-set(a))[:5],len(a),len(b)))
    tot['roots']+=1
    if all(sorted(mine.get(k,[]))==sorted(theirs[k]) for k in theirs): agree['roots']+=1
print('plugin roots with .claude-plugin/plugin.json:',len(roots),'; validate gave no provides:',tot['noprovides'],'; compared:',tot['roots'],'; all components equal:',agree['roots'])
for k in ['skills','commands','agents','hooks','mcpServers']:
    print(f'  {k}: {agree[k]}/{tot[k]} roots equal ({tot["n_"+k]} components per validate)')
for d in diffs: print('DIFF',d)

# Plugin roots Claude Code does not read (no .claude-plugin/plugin.json): ahpls says "not scanned";
# `claude plugin validate ROOT` must then report no plugin (or provide nothing).
repos=sorted(os.listdir(corpus))
other=0; other_ok=0
for repo in repos:
    if repo not in views:
        out=subprocess.run([ahpls,'list','--targets','claude-code','--format','json',os.path.join(corpus,repo)],capture_output=True,text=True)
        try: views[repo]=json.loads(out.stdout)
        except Exception: print('LISTFAIL',repo,out.stderr[:200]); continue
    for it in views[repo]['consumers'][0]['items']:
        if it['category']!='plugins' or it['source'].endswith('.claude-plugin/plugin.json'): continue
        other+=1
        loads=[c for c in it.get('components',[]) if c['status']=='loads']
        root=os.path.join(corpus,repo,os.path.dirname(it['source']).replace('.github/plugin','').replace('.plugin','').rstrip('/'))
        r=subprocess.run([C,'plugin','validate',root,'--json'],capture_output=True,text=True,env=env,timeout=120)
        try: d=json.loads(r.stdout)
        except Exception: d={}
        prov=d.get('provides') or {}
        n=sum(len(prov.get(k) or []) for k in ['skills','commands','agents','hooks','mcpServers'])
        target=d.get('target','')
        reads_plugin = target.endswith('.claude-plugin/plugin.json')
        if it['status']=='not-scanned' and not loads and not reads_plugin:
            other_ok+=1
        else:
            print('OTHER-DIFF',repo,it['source'],it['status'],len(loads),target,n)
print('plugin roots without .claude-plugin/plugin.json:',other,'ahpls "not scanned" and validate reads no plugin manifest there:',other_ok)
