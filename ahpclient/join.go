package ahpclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"strings"
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

// workingDirectories reads a session summary or state's directories in every
// dialect: `workingDirectories` (0.7.0+) or the singular `workingDirectory`.
func workingDirectories(m map[string]any) []string {
	var out []string
	if l, ok := m["workingDirectories"].([]any); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if s, ok := m["workingDirectory"].(string); ok {
		out = append(out, s)
	}
	return out
}

// workingDirectoriesLocked reads directories through the negotiated
// dialect (before 0.7.0 the singular spelling is the current one).
func (c *Client) workingDirectoriesLocked(m map[string]any) []string {
	if c.dialect != nil {
		return c.dialect.WorkingDirectories(m)
	}
	return workingDirectories(m)
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

// Joining: which sessions to follow, and following their chats.

// SetFolders replaces the workspace folders used by Auto joining.
func (c *Client) SetFolders(folders []string) {
	c.mu.Lock()
	c.folders = append([]string(nil), folders...)
	c.evaluateJoinsLocked()
	c.unlock()
}

// Join follows a session explicitly (in addition to Auto matches).
func (c *Client) Join(session string) {
	c.mu.Lock()
	c.explicit[session] = true
	delete(c.failed, session)
	delete(c.rejoin, session)
	c.evaluateJoinsLocked()
	c.unlock()
}

// Leave stops following a session joined explicitly; unsubscribing ends the
// active-client role there (§4.8). An Auto match is re-joined while it
// still matches.
func (c *Client) Leave(session string) {
	c.mu.Lock()
	delete(c.explicit, session)
	c.evaluateJoinsLocked()
	c.unlock()
}

// Joined lists the sessions being followed, sorted.
func (c *Client) Joined() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.joined))
	for s := range c.joined {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// scheduleJoinsLocked coalesces join evaluation for root notifications
// (issue 16): a host announcing thousands of sessions at once must not make
// the client evaluate and subscribe per notification. The evaluation runs
// JoinQuiet after the last notification, or JoinMaxDelay after the first
// of a burst that does not stop.
func (c *Client) scheduleJoinsLocked() {
	now := time.Now()
	if !c.joinPending {
		c.joinPending, c.joinSince = true, now
	}
	wait := min(c.opts.JoinQuiet, c.opts.JoinMaxDelay-now.Sub(c.joinSince))
	if wait < 0 {
		wait = 0
	}
	if c.joinTimer == nil {
		c.joinTimer = time.AfterFunc(wait, c.runScheduledJoins)
		return
	}
	c.joinTimer.Reset(wait)
}

func (c *Client) runScheduledJoins() {
	c.mu.Lock()
	if c.joinPending && !c.closed {
		c.joinPending = false
		c.evaluateJoinsLocked()
	}
	c.unlock()
}

func (c *Client) evaluateJoinsLocked() {
	// Any evaluation covers what a scheduled one would have done.
	c.joinPending = false
	if c.conn == nil {
		return
	}
	want := map[string]bool{}
	for s := range c.explicit {
		if !c.failed[s] {
			want[s] = true
		}
	}
	if c.opts.Auto {
		for uri, sum := range c.summaries {
			dirs := c.workingDirectoriesLocked(sum)
			// A followed session's own state is fresher than its summary.
			if ch := c.channels[uri]; ch != nil && ch.live && hasWorkingDirectories(ch.rendered) {
				dirs = c.workingDirectoriesLocked(ch.rendered)
			}
			if !c.failed[uri] && relevant(dirs, c.folders, c.opts.JoinNested) {
				want[uri] = true
			}
		}
	}
	conn := c.conn
	now := time.Now()
	for s := range want {
		if c.joined[s] {
			continue
		}
		if r, ok := c.rejoin[s]; ok && now.Before(r.at) {
			c.evaluateAtLocked(r.at)
			continue
		}
		c.joined[s] = true
		c.ensureChannelLocked(s, reduce.Session, "")
		c.later(func() { go c.subscribeOn(conn, s, reduce.Session) })
	}
	for s := range c.joined {
		if want[s] {
			continue
		}
		c.leaveLocked(conn, s)
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
func (c *Client) lostSessionLocked(s string) {
	now := time.Now()
	r := c.rejoin[s]
	if now.Sub(r.at) > rejoinReset {
		r.backoff = 0
	}
	r.backoff = min(max(rejoinBase, 2*r.backoff), rejoinMax)
	r.at = now.Add(r.backoff)
	c.rejoin[s] = r
	// Bounded: forget throttles long past.
	if len(c.rejoin) > 1024 {
		for k, v := range c.rejoin {
			if now.Sub(v.at) > rejoinReset {
				delete(c.rejoin, k)
			}
		}
	}
}

// evaluateAtLocked makes sure joins are evaluated again at t.
func (c *Client) evaluateAtLocked(t time.Time) {
	if c.rejoinTimer != nil && !c.rejoinDue.IsZero() && !t.Before(c.rejoinDue) {
		return
	}
	c.rejoinDue = t
	d := time.Until(t)
	if c.rejoinTimer == nil {
		c.rejoinTimer = time.AfterFunc(d, c.runRejoin)
		return
	}
	c.rejoinTimer.Reset(d)
}

func (c *Client) runRejoin() {
	c.mu.Lock()
	c.rejoinDue = time.Time{}
	if !c.closed {
		c.evaluateJoinsLocked()
	}
	c.unlock()
}

func (c *Client) leaveLocked(conn *rpcConn, s string) {
	c.lostSessionLocked(s)
	var uris []string
	for uri, ch := range c.channels {
		if ch.session == s {
			uris = append(uris, uri)
		}
	}
	uris = append(uris, s)
	for _, uri := range uris {
		if ch := c.channels[uri]; ch != nil {
			c.failPendingLocked(ch, ErrConnectionLost)
			delete(c.channels, uri)
		}
		u := uri
		c.later(func() {
			_ = conn.Notify(conn.ctx, wire.MethodUnsubscribe, map[string]any{"channel": u})
		})
	}
	delete(c.joined, s)
	c.emitLocked(Event{Kind: EventSessionLeft, Channel: s, Reason: "left"})
}

// followChatsLocked subscribes to every chat of a joined session (hidden
// ones too) and forgets removed ones.
func (c *Client) followChatsLocked(sess *channelState) {
	if !c.joined[sess.uri] || c.conn == nil {
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
	conn := c.conn
	for r := range want {
		if c.channels[r] != nil {
			continue
		}
		c.ensureChannelLocked(r, reduce.Chat, sess.uri)
		c.later(func() { go c.subscribeOn(conn, r, reduce.Chat) })
	}
	for uri, ch := range c.channels {
		if ch.session == sess.uri && !want[uri] {
			c.failPendingLocked(ch, ErrConnectionLost)
			delete(c.channels, uri)
			c.emitLocked(Event{Kind: EventChannelDropped, Channel: uri, ChannelKind: ch.kind, Reason: "removed"})
		}
	}
}

// Subscribe follows any channel with the given reducer kind (sessions and
// chats are normally followed through joining).
func (c *Client) Subscribe(uri string, kind reduce.Kind) error {
	c.mu.Lock()
	conn := c.conn
	if conn == nil {
		c.mu.Unlock()
		return ErrNotConnected
	}
	c.ensureChannelLocked(uri, kind, "")
	c.mu.Unlock()
	go c.subscribeOn(conn, uri, kind)
	return nil
}

func (c *Client) subscribeOn(conn *rpcConn, uri string, kind reduce.Kind) {
	params := map[string]any{"channel": uri}
	if kind == reduce.Chat && c.opts.ChatTurns > 0 {
		params["view"] = map[string]any{"turns": c.opts.ChatTurns}
	}
	ctx, cancel := context.WithTimeout(conn.ctx, c.opts.RequestTimeout)
	defer cancel()
	_, err := conn.Call(ctx, wire.MethodSubscribe, params, func(res json.RawMessage, err error) {
		c.onSubscribed(conn, uri, res, err)
	})
	if err != nil && !errors.Is(err, ErrConnectionLost) {
		c.log.Warn("ahp: subscribe failed", "channel", uri, "err", err)
	}
}

func (c *Client) onSubscribed(conn *rpcConn, uri string, res json.RawMessage, err error) {
	c.mu.Lock()
	defer c.unlock()
	ch := c.channels[uri]
	if ch == nil && err == nil && c.conn == conn {
		// Left while the subscribe was in flight; the unsubscribe may have
		// overtaken it, so say it again.
		c.later(func() { _ = conn.Notify(conn.ctx, wire.MethodUnsubscribe, map[string]any{"channel": uri}) })
		return
	}
	if ch == nil || c.conn != conn && c.conn != nil {
		return // left meanwhile, or a stale connection
	}
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) {
			c.dropChannelLocked(uri, "failed", err)
			c.failed[uri] = true
		}
		return // connection lost: afterHandshake re-subscribes
	}
	var r struct {
		Snapshot *snapshot `json:"snapshot"`
	}
	_ = json.Unmarshal(res, &r)
	s := snapshot{Resource: uri, State: json.RawMessage("{}"), FromSeq: c.serverSeq}
	if r.Snapshot != nil {
		s = *r.Snapshot
		s.Resource = uri
	}
	c.installSnapshotLocked(s)
	if ch.kind == reduce.Session && c.joined[uri] {
		c.emitLocked(Event{Kind: EventSessionJoined, Channel: uri, ChannelKind: ch.kind, State: ch.rendered})
		c.assertActiveClientLocked(uri)
	}
}
