package enablement

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
)

// Errors returned by Overlay writes.
var (
	ErrWorkspaceless = errors.New("enablement: session has no workspace, workspace decisions are not possible")
	ErrNoGlobal      = errors.New("no global entry")
)

// Pending says why a resolution is not settled yet. Pending items are
// ineligible everywhere (fail closed) and must be recomputed, never cached.
type Pending string

// Pending reasons.
const (
	Settled                 Pending = ""
	PendingSession          Pending = "session"          // decisions not loaded yet
	PendingWorkingDirectory Pending = "workingDirectory" // primary directory unknown
)

// Resolution is the resolved list for one target in one session.
type Resolution struct {
	List    List
	Pending Pending
}

// On is the effective value; pending is off.
func (r Resolution) On() bool { return r.Pending == Settled && Enabled(r.List) }

// Resolver is what the gate needs from an overlay. Overlay implements it;
// Noop returns one with no decisions.
type Resolver interface {
	Resolve(session string, t Target) Resolution
	ApplyClientGlobal(session string, t Target, l List) (Resolution, error)
}

type noop struct{}

func (noop) Resolve(string, Target) Resolution { return Resolution{List: List{}} }
func (noop) ApplyClientGlobal(string, Target, List) (Resolution, error) {
	return Resolution{List: List{}}, nil
}

// Noop is a resolver for code that builds sessions without testing
// enablement: everything settled, no decisions, everything on.
func Noop() Resolver { return noop{} }

// SessionInfo is what the host knows about a session.
type SessionInfo struct {
	Known              bool
	Workspaceless      bool     // metadata says the session has no workspace
	WorktreePending    bool     // a worktree is being prepared
	WorkingDirectories []string // first = primary
	TurnActive         bool
}

// Sessions is the overlay's view of the host's session state. The host
// reports changes through the Overlay.Notify* methods.
type Sessions interface {
	Session(id string) SessionInfo
}

// DirKind classifies a session's primary working directory.
type DirKind string

// Directory states.
const (
	DirWorkspaceless DirKind = "workspaceless"
	DirPending       DirKind = "pending"
	DirDirectory     DirKind = "directory"
)

// DirState is a session's directory state; URI is set for DirDirectory.
type DirState struct {
	Kind DirKind
	URI  string
}

type sessState struct {
	loaded    bool
	loading   bool
	decisions map[string]bool // Session key -> enabled
	base      map[string]bool // durable key -> client Global (memory only)
	primary   DirState        // as of the last notification
	held      bool            // an event waits for the active turn to end
}

type queued struct {
	session string
	target  Target
	full    List // nil = no full replacement queued
	hasFull bool
	scoped  []Decision
}

// Overlay is the host's decision store: host decisions layered over the
// client's Global (an in-memory base per session), persisting only the
// decisions that differ from what they inherit. Safe for concurrent use;
// change callbacks run without the lock held, so they may resolve and
// republish synchronously.
type Overlay struct {
	mu       sync.Mutex
	store    *Store
	sessions Sessions
	data     SessionData
	log      *slog.Logger
	state    map[string]*sessState
	queue    map[string]*queued // session+"\x00"+durable key
	order    []string           // queue keys in arrival order
	subs     []func([]string)
}

// NewOverlay layers host decisions persisted in store (Global/Workspace) and
// data (Session) over per-session client bases. log may be nil.
func NewOverlay(store *Store, sessions Sessions, data SessionData, log *slog.Logger) *Overlay {
	if log == nil {
		log = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	return &Overlay{store: store, sessions: sessions, data: data, log: log,
		state: map[string]*sessState{}, queue: map[string]*queued{}}
}

// OnChange registers fn to receive the sessions whose resolutions may have
// changed. Republish those sessions through ResolveTree.
func (o *Overlay) OnChange(fn func(sessions []string)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.subs = append(o.subs, fn)
}

func (o *Overlay) st(session string) *sessState {
	s := o.state[session]
	if s == nil {
		s = &sessState{decisions: map[string]bool{}, base: map[string]bool{}}
		o.state[session] = s
	}
	return s
}

// events collects affected sessions of one operation; emitted after unlock.
type events map[string]bool

func (o *Overlay) emit(ev events) {
	if len(ev) == 0 {
		return
	}
	o.mu.Lock()
	subs := slices.Clone(o.subs)
	o.mu.Unlock()
	list := slices.Sorted(maps.Keys(ev))
	for _, fn := range subs {
		fn(list)
	}
}

// InitSession loads a session's decisions (possibly slowly, without the lock
// held), replays writes queued meanwhile and fires one change event. Calling
// it again for a loaded session does nothing.
func (o *Overlay) InitSession(session string) {
	o.mu.Lock()
	s := o.st(session)
	if s.loaded || s.loading {
		o.mu.Unlock()
		return
	}
	s.loading = true
	o.mu.Unlock()

	var m map[string]bool
	var err error
	if o.data != nil {
		m, err = o.data.Load(session)
	}
	if err != nil {
		o.log.Warn("enablement: cannot load session decisions, starting empty", "session", session, "err", err)
		m = nil
	}

	o.mu.Lock()
	s.loading = false
	s.loaded = true
	s.decisions = maps.Clone(m)
	if s.decisions == nil {
		s.decisions = map[string]bool{}
	}
	s.primary = o.dirState(session)
	ev := events{session: true}
	o.replayLocked(session, ev)
	o.mu.Unlock()
	o.emit(ev)
}

// CloseSession forgets a session's in-memory state (base, queued writes).
// Its persisted decisions stay.
func (o *Overlay) CloseSession(session string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.state, session)
	o.order = slices.DeleteFunc(o.order, func(k string) bool {
		if q := o.queue[k]; q != nil && q.session == session {
			delete(o.queue, k)
			return true
		}
		return false
	})
}

// DirectoryState classifies the session's primary working directory. An
// unknown session is pending, never workspaceless, so workspace decisions
// survive registration.
func (o *Overlay) DirectoryState(session string) DirState {
	return o.dirState(session)
}

func (o *Overlay) dirState(session string) DirState {
	if o.sessions == nil {
		return DirState{Kind: DirWorkspaceless}
	}
	info := o.sessions.Session(session)
	switch {
	case !info.Known:
		return DirState{Kind: DirPending}
	case info.Workspaceless:
		return DirState{Kind: DirWorkspaceless}
	case info.WorktreePending:
		return DirState{Kind: DirPending}
	case len(info.WorkingDirectories) > 0:
		return DirState{Kind: DirDirectory, URI: info.WorkingDirectories[0]}
	}
	return DirState{Kind: DirPending}
}

// NotifyWorkingDirectories: a directory was set, removed or replaced.
// Replays settled writes; fires an event when the primary changed (held
// while a turn is active).
func (o *Overlay) NotifyWorkingDirectories(session string) { o.notify(session, false) }

// NotifyWorktreePending: the worktree-pending flag changed. Always fires an
// event for the session (held while a turn is active).
func (o *Overlay) NotifyWorktreePending(session string) { o.notify(session, true) }

func (o *Overlay) notify(session string, always bool) {
	o.mu.Lock()
	s := o.st(session)
	ds := o.dirState(session)
	changed := always || ds != s.primary
	s.primary = ds
	ev := events{}
	if s.loaded {
		o.replayLocked(session, ev)
	}
	if changed {
		ev[session] = true
	}
	if ev[session] && o.sessions != nil && o.sessions.Session(session).TurnActive {
		delete(ev, session)
		s.held = true
	}
	o.mu.Unlock()
	o.emit(ev)
}

// NotifyTurnEnded releases an event held during the turn.
func (o *Overlay) NotifyTurnEnded(session string) {
	o.mu.Lock()
	s := o.st(session)
	held := s.held
	s.held = false
	o.mu.Unlock()
	if held {
		o.emit(events{session: true})
	}
}

// Resolve returns the resolved list: Session entry if stored, Workspace entry
// of the primary directory if stored, then the host Global, else the client
// base, else the discovery default. It never touches LRU recency.
func (o *Overlay) Resolve(session string, t Target) Resolution {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.resolveLocked(session, t)
}

func (o *Overlay) pendingLocked(session string) (Pending, DirState) {
	ds := o.dirState(session)
	if !o.st(session).loaded {
		return PendingSession, ds
	}
	if ds.Kind == DirPending {
		return PendingWorkingDirectory, ds
	}
	return Settled, ds
}

func (o *Overlay) resolveLocked(session string, t Target) Resolution {
	p, ds := o.pendingLocked(session)
	if p != Settled {
		return Resolution{Pending: p}
	}
	key, err := t.DurableKey()
	if err != nil {
		return Resolution{List: List{}}
	}
	l := List{}
	if v, ok := o.st(session).decisions[t.ID]; ok {
		l = append(l, Decision{Kind: KindSession, Enabled: v})
	}
	if ds.Kind == DirDirectory {
		if v, ok := o.store.Workspace(ds.URI, key); ok {
			l = append(l, Decision{Kind: KindWorkspace, URI: ds.URI, Enabled: v})
		}
	}
	if g, ok := o.globalLocked(session, t, key); ok {
		l = append(l, Decision{Kind: KindGlobal, Enabled: g})
	}
	return Resolution{List: l}
}

// globalLocked: host global, else base, else discovery default.
func (o *Overlay) globalLocked(session string, t Target, key string) (bool, bool) {
	if v, ok := o.store.Global(key); ok {
		return v, true
	}
	if v, ok := o.baseLocked(session, t, key); ok {
		return v, true
	}
	if t.DiscoveryDefault != nil {
		return *t.DiscoveryDefault, true
	}
	return false, false
}

func (o *Overlay) baseLocked(session string, t Target, key string) (bool, bool) {
	if !t.Bundled {
		return false, false
	}
	v, ok := o.st(session).base[key]
	return v, ok
}

// inheritedGlobal is what a host Global is compared with: base ?? discovery
// default ?? true — never a hard-coded true.
func (o *Overlay) inheritedGlobal(session string, t Target, key string) bool {
	if v, ok := o.baseLocked(session, t, key); ok {
		return v
	}
	if t.DiscoveryDefault != nil {
		return *t.DiscoveryDefault
	}
	return true
}

// ApplyClientGlobal records the client's Global for a bundled target as the
// session's in-memory base; it never writes durable storage, so a stale
// republish cannot erase a host decision. A non-bundled target just
// resolves (the client does not own its Global).
func (o *Overlay) ApplyClientGlobal(session string, t Target, l List) (Resolution, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t.Bundled {
		key, err := t.DurableKey()
		if err != nil {
			return Resolution{}, err
		}
		g, ok := find(l, KindGlobal)
		if !ok {
			return o.resolveLocked(session, t), fmt.Errorf("client plugin %s: %w", key, ErrNoGlobal)
		}
		o.st(session).base[key] = g.Enabled
	}
	return o.resolveLocked(session, t), nil
}

// Set writes one scope: Replace(With(resolved, k, entry)). The workspace
// entry is for the session's primary directory.
func (o *Overlay) Set(session string, t Target, k Kind, enabled bool) (Resolution, error) {
	if rank(k) > 2 {
		return Resolution{}, fmt.Errorf("enablement: unknown scope %q", k)
	}
	o.mu.Lock()
	ev := events{}
	res, err := o.setLocked(session, t, k, enabled, ev)
	o.mu.Unlock()
	o.emit(ev)
	return res, err
}

func (o *Overlay) setLocked(session string, t Target, k Kind, enabled bool, ev events) (Resolution, error) {
	key, err := t.DurableKey()
	if err != nil {
		return Resolution{}, err
	}
	p, ds := o.pendingLocked(session)
	entry := Decision{Kind: k, Enabled: enabled}
	if k == KindWorkspace {
		if ds.Kind == DirWorkspaceless {
			return Resolution{}, ErrWorkspaceless
		}
		entry.URI = ds.URI
	}
	if p != Settled {
		qk := session + "\x00" + key
		q := o.queue[qk]
		if k == KindGlobal {
			o.writeGlobalLocked(session, t, key, entry, true, ev)
			if q != nil {
				q.scoped = append(q.scoped, entry)
			}
			return Resolution{Pending: p}, nil
		}
		if q == nil {
			q = o.enqueue(qk, session, t)
		}
		q.scoped = slices.DeleteFunc(q.scoped, func(d Decision) bool { return d.Kind == k })
		q.scoped = append(q.scoped, entry)
		return Resolution{Pending: p}, nil
	}
	l := With(o.resolveLocked(session, t).List, k, entry)
	return o.replaceSettledLocked(session, t, key, ds, l, ev)
}

func (o *Overlay) enqueue(qk, session string, t Target) *queued {
	q := &queued{session: session, target: t}
	o.queue[qk] = q
	o.order = append(o.order, qk)
	return q
}

// Replace makes l the complete set of host decisions for t in this session:
// every scope absent from l is cleared. It is never a patch.
func (o *Overlay) Replace(session string, t Target, l List) (Resolution, error) {
	o.mu.Lock()
	ev := events{}
	res, err := o.replaceLocked(session, t, l, ev)
	o.mu.Unlock()
	o.emit(ev)
	return res, err
}

func (o *Overlay) replaceLocked(session string, t Target, l List, ev events) (Resolution, error) {
	key, err := t.DurableKey()
	if err != nil {
		return Resolution{}, err
	}
	p, ds := o.pendingLocked(session)
	if p != Settled {
		g, ok := find(l, KindGlobal)
		o.writeGlobalLocked(session, t, key, g, ok, ev)
		qk := session + "\x00" + key
		q := o.queue[qk]
		if q == nil {
			q = o.enqueue(qk, session, t)
		}
		q.full, q.hasFull, q.scoped = slices.Clone(l), true, nil
		return Resolution{Pending: p}, nil
	}
	return o.replaceSettledLocked(session, t, key, ds, l, ev)
}

// Toggle is the host's customizationToggled handler for plugins and MCP
// servers: a client-owned Global is never stored from a toggle, so for a
// bundled target the list's Global entry (present or not) is replaced by the
// currently resolved Global before Replace.
func (o *Overlay) Toggle(session string, t Target, l List) (Resolution, error) {
	o.mu.Lock()
	ev := events{}
	if t.Bundled {
		if key, err := t.DurableKey(); err == nil {
			if g, ok := o.globalLocked(session, t, key); ok {
				l = With(l, KindGlobal, Decision{Kind: KindGlobal, Enabled: g})
			} else {
				l = With(l, KindGlobal)
			}
		}
	}
	res, err := o.replaceLocked(session, t, l, ev)
	o.mu.Unlock()
	o.emit(ev)
	return res, err
}

// writeGlobalLocked stores or clears the host Global against the inherited
// value. A stored host Global prunes equal workspace entries everywhere.
func (o *Overlay) writeGlobalLocked(session string, t Target, key string, g Decision, present bool, ev events) {
	inh := o.inheritedGlobal(session, t, key)
	if !present || g.Enabled == inh {
		if existed, err := o.store.DeleteGlobal(key); existed {
			o.warnPersist(err)
			o.allSessions(ev)
		}
		return
	}
	old, had := o.store.Global(key)
	o.warnPersist(o.store.SetGlobal(key, g.Enabled))
	if !had || old != g.Enabled {
		o.allSessions(ev)
	}
	for _, dir := range o.store.Dirs() {
		if v, ok := o.store.Workspace(dir, key); ok && v == g.Enabled {
			_, err := o.store.DeleteWorkspace(dir, key)
			o.warnPersist(err)
			o.dirSessions(dir, ev)
		}
	}
}

func (o *Overlay) warnPersist(err error) {
	if err != nil {
		o.log.Warn("enablement: cannot persist decision", "err", err)
	}
}

func (o *Overlay) allSessions(ev events) {
	for s := range o.state {
		ev[s] = true
	}
}

func (o *Overlay) dirSessions(dir string, ev events) {
	for s := range o.state {
		if ds := o.dirState(s); ds.Kind == DirDirectory && ds.URI == dir {
			ev[s] = true
		}
	}
}

// replaceSettledLocked applies l as a full replacement: Global, then
// Workspace, then Session, each compared with its freshly inherited value.
func (o *Overlay) replaceSettledLocked(session string, t Target, key string, ds DirState, l List, ev events) (Resolution, error) {
	w, hasW := find(l, KindWorkspace)
	if hasW && ds.Kind != DirDirectory {
		return o.resolveLocked(session, t), ErrWorkspaceless
	}
	g, hasG := find(l, KindGlobal)
	o.writeGlobalLocked(session, t, key, g, hasG, ev)

	effG, ok := o.globalLocked(session, t, key)
	if !ok {
		effG = true
	}
	effW := effG
	if ds.Kind == DirDirectory {
		if hasW && w.Enabled != effG {
			old, had := o.store.Workspace(ds.URI, key)
			o.warnPersist(o.store.SetWorkspace(ds.URI, key, w.Enabled))
			if !had || old != w.Enabled {
				o.dirSessions(ds.URI, ev)
			}
			effW = w.Enabled
		} else if existed, err := o.store.DeleteWorkspace(ds.URI, key); existed {
			o.warnPersist(err)
			o.dirSessions(ds.URI, ev)
		}
	}

	s := o.st(session)
	sd, hasS := find(l, KindSession)
	old, had := s.decisions[t.ID]
	if hasS && sd.Enabled != effW {
		s.decisions[t.ID] = sd.Enabled
	} else {
		delete(s.decisions, t.ID)
	}
	if now, has := s.decisions[t.ID]; has != had || now != old {
		ev[session] = true
		if o.data != nil {
			o.warnPersist(o.data.Save(session, maps.Clone(s.decisions)))
		}
	}
	return o.resolveLocked(session, t), nil
}

// replayLocked applies the session's queued writes that are now settled.
func (o *Overlay) replayLocked(session string, ev events) {
	var keep []string
	for _, qk := range o.order {
		q := o.queue[qk]
		if q == nil {
			continue
		}
		if q.session != session {
			keep = append(keep, qk)
			continue
		}
		p, ds := o.pendingLocked(session)
		if p != Settled {
			keep = append(keep, qk)
			continue
		}
		l := q.full
		if !q.hasFull {
			l = o.resolveLocked(session, q.target).List
		}
		for _, d := range q.scoped {
			l = With(l, d.Kind, d)
		}
		if _, ok := find(l, KindWorkspace); ok && ds.Kind == DirWorkspaceless {
			o.log.Warn("enablement: dropping queued workspace decision, session has no workspace", "session", session, "id", q.target.ID)
			l = With(l, KindWorkspace)
		}
		key, _ := q.target.DurableKey()
		if _, err := o.replaceSettledLocked(session, q.target, key, ds, l, ev); err != nil {
			o.log.Warn("enablement: replay failed", "session", session, "id", q.target.ID, "err", err)
		}
		delete(o.queue, qk)
	}
	o.order = keep
}

// SessionDecisions copies the session's stored Session-scope decisions.
func (o *Overlay) SessionDecisions(session string) map[string]bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.st(session).decisions)
}
