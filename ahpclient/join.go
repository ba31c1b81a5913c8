package ahpclient

// Session joining: which sessions (and their chats) to follow, explicitly
// or by working directory (docs/ahp.md §2.6), and following them.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// NormalizeFileURI makes file: URIs comparable (docs/ahp.md §2.6):
// percent-decoded path, no trailing slash, lower-case Windows drive letter.
// Other schemes are returned with only the trailing slash trimmed.
func NormalizeFileURI(u string) string {
	if !strings.HasPrefix(strings.ToLower(u), "file:") {
		return strings.TrimRight(u, "/")
	}
	p, err := url.Parse(u)
	if err != nil {
		return strings.TrimRight(u, "/")
	}
	path := p.Path
	if len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = "/" + strings.ToLower(path[1:2]) + path[2:]
	}
	path = strings.TrimRight(path, "/")
	if path == "" {
		path = "/"
	}
	host := strings.ToLower(p.Host)
	return "file://" + host + path
}

// Covers reports whether working directory w covers workspace folder f:
// w equals f or is an ancestor of it. With nested, w inside f also counts.
func Covers(w, f string, nested bool) bool {
	w, f = NormalizeFileURI(w), NormalizeFileURI(f)
	if w == f {
		return true
	}
	under := func(child, parent string) bool {
		if strings.HasSuffix(parent, "/") {
			return strings.HasPrefix(child, parent)
		}
		return strings.HasPrefix(child, parent+"/")
	}
	return under(f, w) || (nested && under(w, f))
}

// relevant: some working directory covers some folder.
func relevant(dirs, folders []string, nested bool) bool {
	for _, w := range dirs {
		for _, f := range folders {
			if Covers(w, f, nested) {
				return true
			}
		}
	}
	return false
}

func hasWorkingDirectories(m map[string]any) bool {
	_, a := m["workingDirectories"]
	_, b := m["workingDirectory"]
	return a || b
}

// joiner decides which sessions to follow and follows them and their
// chats. It takes mirror.mu (after its own) to read and change channels.
type joiner struct {
	opts     *Options
	log      *slog.Logger
	clientID string
	q        *eventQueue
	m        *mirror
	d        *dispatcher // assertActiveClient
	c        *connection
	sessions *sessionList

	mu sync.Mutex // the outermost lock of the client
	st joinState  // guarded by mu

	// The inbox is how the mirror tells the joiner what it saw (a session
	// rendered or dropped) without taking mu: notes are handled in order on
	// the joiner's goroutine (run).
	inboxMu  sync.Mutex      // a leaf
	inbox    []joinNote      // guarded by inboxMu
	rendered map[string]bool // sessions with a render note in inbox, guarded by inboxMu
	wake     chan struct{}
}

// joinNote is one thing the mirror saw about a session.
type joinNote struct {
	session string
	dropped bool // the session's channel was dropped (else: it rendered)
	reason  string
	err     error
}

// joinState is the joiner's mutable state.
type joinState struct {
	explicit     map[string]bool
	folders      []string
	joined       map[string]bool
	failed       map[string]bool
	activeClient map[string]any
	closed       bool
	// Coalesced join evaluation (scheduleJoinsLocked).
	joinTimer   *time.Timer
	joinPending bool
	joinSince   time.Time // first notification of the pending burst
	// rejoin throttles following a session again after it was lost
	// (removed, failed, left): a host flapping a session costs one
	// subscribe per backoff period, not one per notification.
	rejoin      map[string]rejoinState
	rejoinTimer *time.Timer
	rejoinDue   time.Time
}

// note queues what the mirror saw; a render already queued for the same
// session is not queued twice.
func (j *joiner) note(n joinNote) {
	j.inboxMu.Lock()
	if !n.dropped {
		if j.rendered[n.session] {
			j.inboxMu.Unlock()
			return
		}
		if j.rendered == nil {
			j.rendered = map[string]bool{}
		}
		j.rendered[n.session] = true
	}
	j.inbox = append(j.inbox, n)
	j.inboxMu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// run handles inbox notes until stop.
func (j *joiner) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-j.wake:
		}
		j.inboxMu.Lock()
		notes := j.inbox
		j.inbox, j.rendered = nil, nil
		j.inboxMu.Unlock()
		for _, n := range notes {
			j.handle(n)
		}
	}
}

func (j *joiner) handle(n joinNote) {
	var out deferred
	defer func() { out.run() }()
	j.mu.Lock()
	defer j.mu.Unlock()
	if n.dropped {
		j.droppedLocked(n.session, n.reason, n.err)
		return
	}
	if conn := j.c.live(); conn != nil && j.st.joined[n.session] {
		j.followChatsLocked(conn, n.session, &out)
	}
	j.evaluateJoinsLocked(&out)
}

// droppedLocked: the mirror dropped session s; it is no longer followed
// and is joined again only after a backoff.
func (j *joiner) droppedLocked(s, reason string, err error) {
	if j.st.joined[s] {
		delete(j.st.joined, s)
		j.q.push(Event{Kind: EventSessionLeft, Channel: s, Reason: reason, Err: err})
	}
	j.st.failed[s] = true
	j.lostSessionLocked(s)
}

// SetFolders replaces the workspace folders used by Auto joining.
func (j *joiner) SetFolders(folders []string) {
	j.locked(func(out *deferred) {
		j.st.folders = append([]string(nil), folders...)
		j.evaluateJoinsLocked(out)
	})
}

// Join follows a session explicitly (in addition to Auto matches).
func (j *joiner) Join(session string) {
	j.locked(func(out *deferred) {
		j.st.explicit[session] = true
		delete(j.st.failed, session)
		delete(j.st.rejoin, session)
		j.evaluateJoinsLocked(out)
	})
}

// Leave stops following a session joined explicitly; unsubscribing ends the
// active-client role there (§4.8). An Auto match is re-joined while it
// still matches.
func (j *joiner) Leave(session string) {
	j.locked(func(out *deferred) {
		delete(j.st.explicit, session)
		j.evaluateJoinsLocked(out)
	})
}

// evaluate re-decides the joins (after the session list was refreshed).
func (j *joiner) evaluate() { j.locked(j.evaluateJoinsLocked) }

// locked runs f under mu, then the sends it queued.
func (j *joiner) locked(f func(out *deferred)) {
	var out deferred
	j.mu.Lock()
	f(&out)
	j.mu.Unlock()
	out.run()
}

// Joined lists the sessions being followed, sorted.
func (j *joiner) Joined() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]string, 0, len(j.st.joined))
	for s := range j.st.joined {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// sessionNotified reacts to a root/session* notification the session list
// already recorded: a session added may be joined again, a removed one is
// dropped, and the joins are re-decided soon.
func (j *joiner) sessionNotified(method, uri string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch method {
	case wire.MethodSessionAdded:
		delete(j.st.failed, uri)
	case wire.MethodSessionRemoved:
		if j.st.joined[uri] && j.m.drop(uri, "removed") {
			j.droppedLocked(uri, "removed", nil)
		}
	}
	j.scheduleJoinsLocked()
}

// reassert, after a handshake, follows the joined sessions' chats again and
// re-asserts the active-client entry.
func (j *joiner) reassert() {
	j.locked(func(out *deferred) {
		conn := j.c.live()
		if conn == nil {
			return
		}
		for s := range j.st.joined {
			j.followChatsLocked(conn, s, out)
			j.d.assertActiveClient(conn, s, j.st.activeClient, out)
		}
	})
}

// SetActiveClient sets the SessionActiveClient entry this client asserts in
// every joined session (tools, customizations; clientId is filled in). It
// is dispatched as session/activeClientSet now, on every join, and after a
// reconnect whenever the session's entry differs from it. nil stops
// asserting (the entry is not removed).
func (j *joiner) SetActiveClient(entry any) error {
	var m map[string]any
	if entry != nil {
		var err error
		if m, err = toObject(entry); err != nil {
			return err
		}
		m["clientId"] = j.clientID
		if _, ok := m["tools"]; !ok {
			m["tools"] = []any{}
		}
	}
	j.locked(func(out *deferred) {
		j.st.activeClient = m
		if conn := j.c.live(); conn != nil {
			for s := range j.st.joined {
				j.d.assertActiveClient(conn, s, m, out)
			}
		}
	})
	return nil
}

// scheduleJoinsLocked coalesces join evaluation for root notifications
// (issue 16): a host announcing thousands of sessions at once must not make
// the client evaluate and subscribe per notification. The evaluation runs
// JoinQuiet after the last notification, or JoinMaxDelay after the first
// of a burst that does not stop.
func (j *joiner) scheduleJoinsLocked() {
	now := time.Now()
	if !j.st.joinPending {
		j.st.joinPending, j.st.joinSince = true, now
	}
	wait := max(min(j.opts.JoinQuiet, j.opts.JoinMaxDelay-now.Sub(j.st.joinSince)), 0)
	if j.st.joinTimer == nil {
		j.st.joinTimer = time.AfterFunc(wait, j.runScheduledJoins)
		return
	}
	j.st.joinTimer.Reset(wait)
}

func (j *joiner) runScheduledJoins() {
	j.locked(func(out *deferred) {
		if j.st.joinPending && !j.st.closed {
			j.evaluateJoinsLocked(out)
		}
	})
}

func (j *joiner) evaluateJoinsLocked(out *deferred) {
	// Any evaluation covers what a scheduled one would have done.
	j.st.joinPending = false
	conn := j.c.live()
	if conn == nil {
		return
	}
	want := map[string]bool{}
	for s := range j.st.explicit {
		if !j.st.failed[s] {
			want[s] = true
		}
	}
	d := j.m.n.Dialect()
	if d == nil {
		d = wire.V08{}
	}
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	if j.opts.Auto {
		j.sessions.each(func(uri string, sum wire.SessionSummary) {
			dirs := d.SummaryWorkingDirectories(sum)
			// A followed session's own state is fresher than its summary.
			if ch := j.m.st.channels[uri]; ch != nil && ch.live && hasWorkingDirectories(ch.rendered) {
				dirs = d.WorkingDirectories(ch.rendered)
			}
			if !j.st.failed[uri] && relevant(dirs, j.st.folders, j.opts.JoinNested) {
				want[uri] = true
			}
		})
	}
	now := time.Now()
	for s := range want {
		if j.st.joined[s] {
			continue
		}
		if r, ok := j.st.rejoin[s]; ok && now.Before(r.at) {
			j.evaluateAtLocked(r.at)
			continue
		}
		j.st.joined[s] = true
		j.m.ensureChannelLocked(s, reduce.Session, "")
		out.add(func() { go j.subscribeOn(conn, s, reduce.Session) })
	}
	for s := range j.st.joined {
		if !want[s] {
			j.leaveLocked(conn, s, out)
		}
	}
}

// rejoinState is the throttle on following a lost session again.
type rejoinState struct {
	at      time.Time     // not before
	backoff time.Duration // the last wait
}

const (
	rejoinBase  = time.Second
	rejoinMax   = 30 * time.Second
	rejoinReset = time.Minute // a session stable this long starts from rejoinBase again
)

// lostSessionLocked notes that a session stopped being followed: the
// next join waits rejoinBase, doubling with each loss up to rejoinMax.
func (j *joiner) lostSessionLocked(s string) {
	now := time.Now()
	r := j.st.rejoin[s]
	if now.Sub(r.at) > rejoinReset {
		r.backoff = 0
	}
	r.backoff = min(max(rejoinBase, 2*r.backoff), rejoinMax)
	r.at = now.Add(r.backoff)
	j.st.rejoin[s] = r
	// Bounded: forget throttles long past.
	if len(j.st.rejoin) > 1024 {
		for k, v := range j.st.rejoin {
			if now.Sub(v.at) > rejoinReset {
				delete(j.st.rejoin, k)
			}
		}
	}
}

// evaluateAtLocked makes sure joins are evaluated again at t.
func (j *joiner) evaluateAtLocked(t time.Time) {
	if j.st.rejoinTimer != nil && !j.st.rejoinDue.IsZero() && !t.Before(j.st.rejoinDue) {
		return
	}
	j.st.rejoinDue = t
	d := time.Until(t)
	if j.st.rejoinTimer == nil {
		j.st.rejoinTimer = time.AfterFunc(d, j.runRejoin)
		return
	}
	j.st.rejoinTimer.Reset(d)
}

func (j *joiner) runRejoin() {
	j.locked(func(out *deferred) {
		j.st.rejoinDue = time.Time{}
		if !j.st.closed {
			j.evaluateJoinsLocked(out)
		}
	})
}

// leaveLocked stops following session s and its chats (mirror.mu held).
func (j *joiner) leaveLocked(conn *rpcConn, s string, out *deferred) {
	j.lostSessionLocked(s)
	var uris []string
	for uri, ch := range j.m.st.channels {
		if ch.session == s {
			uris = append(uris, uri)
		}
	}
	uris = append(uris, s)
	for _, uri := range uris {
		if ch := j.m.st.channels[uri]; ch != nil {
			ch.failPending(ErrConnectionLost)
			delete(j.m.st.channels, uri)
		}
		out.add(func() {
			_ = conn.Notify(conn.ctx, wire.MethodUnsubscribe, map[string]any{"channel": uri})
		})
	}
	delete(j.st.joined, s)
	j.q.push(Event{Kind: EventSessionLeft, Channel: s, Reason: "left"})
}

// followChatsLocked subscribes to every chat of a joined session (hidden
// ones too) and forgets removed ones.
func (j *joiner) followChatsLocked(conn *rpcConn, session string, out *deferred) {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	sess := j.m.st.channels[session]
	if sess == nil || !sess.live {
		return
	}
	want := map[string]bool{}
	if l, ok := sess.rendered["chats"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				if r, ok := m["resource"].(string); ok {
					want[r] = true
				}
			}
		}
	}
	for r := range want {
		if j.m.st.channels[r] != nil {
			continue
		}
		j.m.ensureChannelLocked(r, reduce.Chat, session)
		out.add(func() { go j.subscribeOn(conn, r, reduce.Chat) })
	}
	for uri, ch := range j.m.st.channels {
		if ch.session == session && !want[uri] {
			ch.failPending(ErrConnectionLost)
			delete(j.m.st.channels, uri)
			j.q.push(Event{Kind: EventChannelDropped, Channel: uri, ChannelKind: ch.kind, Reason: "removed"})
		}
	}
}

// Subscribe follows any channel with the given reducer kind (sessions and
// chats are normally followed through joining).
func (j *joiner) Subscribe(uri string, kind reduce.Kind) error {
	conn := j.c.live()
	if conn == nil {
		return ErrNotConnected
	}
	j.m.ensureChannel(uri, kind)
	go j.subscribeOn(conn, uri, kind)
	return nil
}

func (j *joiner) subscribeOn(conn *rpcConn, uri string, kind reduce.Kind) {
	params := map[string]any{"channel": uri}
	if kind == reduce.Chat && j.opts.ChatTurns > 0 {
		params["view"] = map[string]any{"turns": j.opts.ChatTurns}
	}
	ctx, cancel := context.WithTimeout(conn.ctx, j.opts.RequestTimeout)
	defer cancel()
	_, err := conn.Call(ctx, wire.MethodSubscribe, params, func(res json.RawMessage, err error) {
		j.onSubscribed(conn, uri, res, err)
	})
	if err != nil && !errors.Is(err, ErrConnectionLost) {
		j.log.Warn("ahp: subscribe failed", "channel", uri, "err", err)
	}
}

// onSubscribed installs a subscribe's snapshot (on the read loop, before
// later frames) and, for a joined session, announces it and asserts the
// active-client entry.
func (j *joiner) onSubscribed(conn *rpcConn, uri string, res json.RawMessage, err error) {
	var out deferred
	defer func() { out.run() }()
	j.mu.Lock()
	defer j.mu.Unlock()
	cur := j.c.live()
	j.m.mu.Lock()
	ch := j.m.st.channels[uri]
	if ch == nil && err == nil && cur == conn {
		j.m.mu.Unlock()
		// Left while the subscribe was in flight; the unsubscribe may have
		// overtaken it, so say it again.
		out.add(func() { _ = conn.Notify(conn.ctx, wire.MethodUnsubscribe, map[string]any{"channel": uri}) })
		return
	}
	if ch == nil || cur != conn && cur != nil {
		j.m.mu.Unlock()
		return // left meanwhile, or a stale connection
	}
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) {
			if j.m.dropChannelLocked(uri, "failed", err) {
				j.droppedLocked(uri, "failed", err)
			}
			j.st.failed[uri] = true
		}
		j.m.mu.Unlock()
		return // connection lost: afterHandshake re-subscribes
	}
	var r struct {
		Snapshot *snapshot `json:"snapshot"`
	}
	_ = json.Unmarshal(res, &r)
	s := snapshot{Resource: uri, State: json.RawMessage("{}"), FromSeq: j.m.st.serverSeq}
	if r.Snapshot != nil {
		s = *r.Snapshot
		s.Resource = uri
	}
	j.m.installSnapshotLocked(s)
	joined := ch.kind == reduce.Session && j.st.joined[uri]
	if joined {
		j.q.push(Event{Kind: EventSessionJoined, Channel: uri, ChannelKind: ch.kind, State: ch.rendered})
	}
	j.m.mu.Unlock()
	if joined && cur != nil {
		j.d.assertActiveClient(cur, uri, j.st.activeClient, &out)
	}
}

func (j *joiner) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.st.closed = true
}
