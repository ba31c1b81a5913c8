package toolexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/tools"
)

// Host is what the executor needs from the AHP client; *ahpclient.Client
// satisfies it.
type Host interface {
	ClientID() string
	Dispatch(channel string, action any) (*ahpclient.Dispatched, error)
	OnEvent(f func(ahpclient.Event)) (remove func())
	State(uri string) (map[string]any, bool)
	Sessions() map[string]wire.SessionSummary
	// ResourceReadLimited reads a referenced tool input of at most max
	// bytes; a longer one fails without being buffered whole.
	ResourceReadLimited(ctx context.Context, uri, encoding string, max int) (data []byte, contentType string, err error)
	// ProtocolVersion is the negotiated version: chat/toolCallProgress is
	// sent only from 1.1 on.
	ProtocolVersion() string
}

// Runner runs the tools of one session's workspace; *tools.Registry
// satisfies it.
type Runner interface {
	Lookup(name string) (*tools.Definition, bool)
	Run(ctx context.Context, name string, toolInput []byte, onProgress tools.ProgressFunc) tools.Result
}

// CallInfo identifies one executed call, for the Observer.
type CallInfo struct {
	Session     string
	Chat        string
	TurnID      string
	ToolCallID  string
	ToolName    string // wire name, e.g. ahpls_go_test
	DisplayName string
	// Invocation is the host's invocationMessage text (may be empty).
	Invocation string
}

// Token is a stable identifier of the call, usable as an LSP work-done
// progress token.
func (c CallInfo) Token() string { return "ahpls-tool:" + c.Chat + "#" + c.TurnID + "#" + c.ToolCallID }

// Observer sees local runs: the server maps it to LSP work-done progress and
// window/logMessage. Calls come from the run's goroutine, in order per call
// (Started, Progress…, Finished); Finished comes for every Started, also when
// the run was cancelled (result.Cancelled) and nothing was sent. Methods
// must not block for long.
type Observer interface {
	Started(call CallInfo)
	// Progress gives a one-line summary of the latest output (its last
	// non-empty line, shortened), at most about ten times a second.
	Progress(call CallInfo, text string)
	Finished(call CallInfo, result tools.Result)
}

// Options configure an Executor.
type Options struct {
	// Client is the AHP client (required).
	Client Host
	// Tools returns the tools of a session (by session URI), or nil when
	// this client offers none there; every call is then an unknown tool. It
	// must return an untyped nil, not a nil *tools.Registry.
	Tools func(session string) Runner
	// Observer may be nil.
	Observer Observer
	// Logger defaults to a text handler on stderr.
	Logger *slog.Logger
	// StreamLimit bounds the text of each chat/toolCallContentChanged (the
	// tail of the output is kept). Default DefaultStreamLimit.
	StreamLimit int
	// DisconnectTimeout: once the connection has been down this long, the
	// host is taken as gone — running tools are killed and results not yet
	// delivered are dropped (by then a host has failed the calls; its grace
	// period is typically 30 s). 0 means DefaultDisconnectTimeout; a
	// negative value never gives up.
	DisconnectTimeout time.Duration
}

// DefaultDisconnectTimeout is the default Options.DisconnectTimeout.
const DefaultDisconnectTimeout = 2 * time.Minute

// DefaultStreamLimit is the default bound on streamed content.
const DefaultStreamLimit = 32 << 10

// Tool-call statuses the executor acts on (docs/ahp.md §5.2).
const (
	statusRunning = wire.ToolRunning
	statusPending = wire.ToolPendingConfirmation
)

type callKey struct{ Chat, TurnID, ToolCallID string }

type phase int

const (
	phaseRunning  phase = iota // the local run is in flight
	phaseFinished              // an action (completion or denial) is ready but not sent
	phaseSending               // dispatched; waiting for the echo, rejection or loss
	phaseDone                  // handled; kept as a tombstone against a second run
)

type entry struct {
	key       callKey
	session   string
	forStatus string // the call status this entry handles
	phase     phase
	// retry: the last dispatch was lost with the connection (or never
	// left); decide on re-sending from the client's current state only.
	retry  bool
	info   CallInfo
	cancel context.CancelFunc
	action any
	sent   *ahpclient.Dispatched
}

// Executor runs this client's tool calls. Create with New, then Start.
type Executor struct {
	client    Host
	clientID  string
	toolsFor  func(string) Runner
	obs       Observer
	log       *slog.Logger
	streamCap int
	discAfter time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	started     bool
	stopped     bool
	remove      func()
	runs        map[callKey]*entry
	chats       map[string]map[string]any // last processed state per followed chat
	sessions    map[string]map[string]any // last processed state per session
	chatSession map[string]string
	views       viewCache // of x.chats
	freshViews  viewCache // of the client's current states (fresh)
	// discTimer fires DisconnectTimeout after a disconnect; discGen tells a
	// stale firing (the connection came back meanwhile) from a current one.
	discTimer *time.Timer
	discGen   int
}

// New creates an Executor; nothing happens until Start.
func New(opts Options) *Executor {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	if opts.StreamLimit <= 0 {
		opts.StreamLimit = DefaultStreamLimit
	}
	if opts.DisconnectTimeout == 0 {
		opts.DisconnectTimeout = DefaultDisconnectTimeout
	}
	if opts.Tools == nil {
		opts.Tools = func(string) Runner { return nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Executor{
		client: opts.Client, clientID: opts.Client.ClientID(), toolsFor: opts.Tools, obs: opts.Observer,
		log: opts.Logger.With("part", "toolexec"), streamCap: opts.StreamLimit, discAfter: opts.DisconnectTimeout, ctx: ctx, cancel: cancel,
		runs: map[callKey]*entry{}, chats: map[string]map[string]any{}, sessions: map[string]map[string]any{},
		chatSession: map[string]string{}, views: viewCache{}, freshViews: viewCache{},
	}
}

// Start subscribes to the client's events and looks at the state already
// mirrored (calls that are running now are started). Call it once, best
// before the client's Run, so that no state change is seen out of order.
// Do not call Stop from an Observer method (Stop waits for the runs that
// call it).
func (x *Executor) Start() {
	x.mu.Lock()
	if x.started || x.stopped {
		x.mu.Unlock()
		return
	}
	x.started = true
	x.mu.Unlock()
	remove := x.client.OnEvent(x.onEvent)
	x.mu.Lock()
	x.remove = remove
	x.mu.Unlock()
	// Seed from the mirror. Events queued meanwhile are older than this; the
	// current-state checks in reconcileLocked keep them from undoing it.
	sessions := x.client.Sessions()
	uris := make([]string, 0, len(sessions))
	for s := range sessions {
		uris = append(uris, s)
	}
	sort.Strings(uris)
	for _, s := range uris {
		st, ok := x.client.State(s)
		if !ok {
			continue
		}
		x.onEvent(ahpclient.Event{Kind: ahpclient.EventStateChanged, Channel: s, ChannelKind: reduce.Session, State: st})
		for _, chat := range chatURIs(st) {
			if cst, ok := x.client.State(chat); ok {
				x.onEvent(ahpclient.Event{Kind: ahpclient.EventStateChanged, Channel: chat, ChannelKind: reduce.Chat, State: cst})
			}
		}
	}
}

// Stop unsubscribes, cancels every run (killing its process group) and
// waits until all runs have ended. Nothing more is sent after Stop.
func (x *Executor) Stop() {
	x.mu.Lock()
	if x.stopped {
		x.mu.Unlock()
		x.wg.Wait()
		return
	}
	x.stopped = true
	x.stopDiscTimerLocked()
	remove := x.remove
	for k, e := range x.runs {
		if e.cancel != nil {
			e.cancel()
		}
		delete(x.runs, k)
	}
	x.mu.Unlock()
	if remove != nil {
		remove()
	}
	x.cancel()
	x.wg.Wait()
}

// Cancel stops the running calls match selects (for example command
// tools once workspace trust is revoked) and reports how many. Unlike a
// call the host withdrew, each of these still gets its completion: the
// entry stays the run's, so finish sends the cancelled result (one
// toolCallComplete per call, docs/ahp.md §5.4).
func (x *Executor) Cancel(match func(CallInfo) bool) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, e := range x.runs {
		if e.phase == phaseRunning && e.cancel != nil && match(e.info) {
			e.cancel()
			n++
		}
	}
	return n
}

// effects are client calls decided under the lock and made after it.
type effects []func()

func (fx *effects) add(f func()) { *fx = append(*fx, f) }

func (fx effects) run() {
	for _, f := range fx {
		f()
	}
}

func (x *Executor) onEvent(ev ahpclient.Event) {
	var fx effects
	x.mu.Lock()
	if x.stopped {
		x.mu.Unlock()
		return
	}
	switch ev.Kind {
	case ahpclient.EventStateChanged:
		switch ev.ChannelKind {
		case reduce.Chat:
			if ev.State != nil {
				x.chats[ev.Channel] = ev.State
				x.reconcileLocked(ev.Channel, &fx)
			}
		case reduce.Session:
			if ev.State != nil {
				x.sessionChangedLocked(ev.Channel, ev.State, &fx)
			}
		}
	case ahpclient.EventDisconnected:
		if x.discTimer == nil && x.discAfter > 0 {
			x.discGen++
			gen := x.discGen
			x.discTimer = time.AfterFunc(x.discAfter, func() { x.hostGone(gen) })
		}
	case ahpclient.EventConnected:
		x.stopDiscTimerLocked()
		if !ev.Resumed {
			// A fresh initialize: every channel is re-subscribed and its
			// state arrives again; until then what we hold is stale.
			clear(x.chats)
			clear(x.sessions)
			clear(x.views)
			clear(x.freshViews)
		}
		for _, chat := range x.chatsWithEntriesLocked() {
			x.reconcileLocked(chat, &fx)
		}
	case ahpclient.EventChannelDropped, ahpclient.EventSessionLeft:
		x.forgetLocked(ev.Channel, ev.Reason)
	}
	x.mu.Unlock()
	fx.run()
}

func (x *Executor) stopDiscTimerLocked() {
	if x.discTimer != nil {
		x.discTimer.Stop()
		x.discTimer = nil
	}
	x.discGen++
}

// hostGone abandons local work after a long disconnect: running tools are
// killed and undelivered results dropped. Handled calls stay remembered, so
// a call completed before the outage is never run again.
func (x *Executor) hostGone(gen int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stopped || gen != x.discGen {
		return
	}
	x.discTimer = nil
	for k, e := range x.runs {
		switch e.phase {
		case phaseRunning:
			x.log.Warn("toolexec: host unreachable for too long; killing the run", "chat", k.Chat, "toolCallId", k.ToolCallID, "after", x.discAfter)
			e.cancel()
			delete(x.runs, k)
		case phaseFinished:
			x.log.Warn("toolexec: host unreachable for too long; result dropped", "chat", k.Chat, "toolCallId", k.ToolCallID, "after", x.discAfter)
			delete(x.runs, k)
		}
	}
}

func (x *Executor) sessionChangedLocked(s string, st map[string]any, fx *effects) {
	x.sessions[s] = st
	for _, chat := range chatURIs(st) {
		x.chatSession[chat] = s
	}
	todo := map[string]bool{}
	for _, req := range inputRequests(st) {
		if req.Chat == "" {
			continue
		}
		x.chatSession[req.Chat] = s
		if req.Kind == wire.InputToolClientExecution || req.Kind == wire.InputToolConfirmation {
			todo[req.Chat] = true
		}
	}
	for k, e := range x.runs {
		if e.session == s {
			todo[k.Chat] = true
		}
	}
	chats := make([]string, 0, len(todo))
	for c := range todo {
		if _, live := x.chats[c]; !live {
			chats = append(chats, c)
		}
	}
	sort.Strings(chats)
	for _, c := range chats {
		x.reconcileLocked(c, fx)
	}
}

// forgetLocked handles a dropped chat or a session left: its runs are
// cancelled and nothing is sent for them.
func (x *Executor) forgetLocked(uri, reason string) {
	for k, e := range x.runs {
		if k.Chat == uri || e.session == uri {
			x.log.Info("toolexec: channel gone; abandoning call", "channel", uri, "reason", reason, "chat", k.Chat, "toolCallId", k.ToolCallID)
			if e.cancel != nil {
				e.cancel()
			}
			delete(x.runs, k)
		}
	}
	delete(x.chats, uri)
	delete(x.views, uri)
	delete(x.freshViews, uri)
	delete(x.sessions, uri)
	for c, s := range x.chatSession {
		if c == uri || s == uri {
			delete(x.chatSession, c)
		}
	}
}

func (x *Executor) chatsWithEntriesLocked() []string {
	set := map[string]bool{}
	for k := range x.runs {
		set[k.Chat] = true
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// callView is one tool call as read from a chat state or an inputNeeded
// entry (read-only map).
type callView struct {
	key   callKey
	tc    map[string]any
	state string
}

func (c callView) ours(clientID string) bool {
	con, _ := c.tc["contributor"].(map[string]any)
	return con["kind"] == "client" && con["clientId"] == clientID
}

// view is the set of calls of one chat that matter to us, with its source.
type view struct {
	calls []callView
	index map[callKey]int
}

func (v *view) status(k callKey) string {
	if i, ok := v.index[k]; ok {
		return v.calls[i].state
	}
	return ""
}

// newView keeps the first entry of each call. A host that re-sent a
// toolCallStart may show two entries for one toolCallId; every reader here
// (the view, statusOf) takes the first, so a call's status never comes
// from one entry and its identity from another (issue 15).
func newView(calls []callView) *view {
	v := &view{calls: calls[:0:0], index: make(map[callKey]int, len(calls))}
	for _, c := range calls {
		if _, dup := v.index[c.key]; dup {
			continue
		}
		v.index[c.key] = len(v.calls)
		v.calls = append(v.calls, c)
	}
	return v
}

// viewOf reads the calls of chat from a chat state (authoritative when we
// follow the chat) or else from its session's inputNeeded entries.
func viewOf(chatState, sessionState map[string]any, chat, clientID string) (*view, bool) {
	if chatState != nil {
		return newView(callsFromChat(chat, chatState)), true
	}
	if sessionState == nil {
		return nil, false
	}
	if !contains(chatURIs(sessionState), chat) {
		return newView(nil), true // the chat is gone
	}
	return newView(callsFromInputNeeded(chat, sessionState, clientID)), true
}

func (x *Executor) viewLocked(chat string) (*view, bool) {
	if st := x.chats[chat]; st != nil {
		return x.views.of(chat, st), true
	}
	return viewOf(nil, x.sessions[x.chatSession[chat]], chat, x.clientID)
}

// viewCache keeps, per followed chat, the view of the last state read and
// the parts it was read from. The reducers share every unchanged part with
// the previous state, so the next state's view costs a pointer comparison
// per part plus the parts that changed, instead of re-reading every call
// into a new index on every event (issue 28: with 1,000 calls in flight
// that re-reading was a fifth of the CPU).
type viewCache map[string]*cachedView

type cachedView struct {
	turnID   string
	parts    []any
	partCall []int // per part, its index in v.calls, or -1
	v        *view
}

func (vc viewCache) of(chat string, st map[string]any) *view {
	turn, _ := st["activeTurn"].(map[string]any)
	turnID, _ := turn["id"].(string)
	parts, _ := turn["responseParts"].([]any)
	if c := vc[chat]; c != nil && c.turnID == turnID && len(parts) >= len(c.parts) && c.update(chat, parts) {
		return c.v
	}
	c := &cachedView{turnID: turnID, v: newView(nil)}
	c.update(chat, parts) // from nothing it only appends: always true
	vc[chat] = c
	return c.v
}

// update brings the view from c.parts to parts; false means the change is
// not one it follows (a part turned into another call), and the caller
// reads the state afresh.
func (c *cachedView) update(chat string, parts []any) bool {
	for i, p := range parts {
		if i < len(c.parts) && samePart(p, c.parts[i]) {
			continue
		}
		cv, isCall := partCall(chat, c.turnID, p)
		if i < len(c.parts) {
			j := c.partCall[i]
			switch {
			case j >= 0 && isCall && c.v.calls[j].key == cv.key:
				c.v.calls[j] = cv
			case j < 0 && !isCall:
			case j < 0 && isCall:
				if _, dup := c.v.index[cv.key]; !dup {
					return false
				}
			default:
				return false
			}
			continue
		}
		j := -1
		if isCall {
			if _, dup := c.v.index[cv.key]; !dup {
				j = len(c.v.calls)
				c.v.index[cv.key] = j
				c.v.calls = append(c.v.calls, cv)
			}
		}
		c.partCall = append(c.partCall, j)
	}
	c.parts = parts
	return true
}

// samePart reports whether two parts are the same map (shared by the
// reducer, hence unchanged).
func samePart(a, b any) bool {
	ma, ok := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	if !ok || !ok2 {
		return false
	}
	return reflect.ValueOf(ma).UnsafePointer() == reflect.ValueOf(mb).UnsafePointer()
}

// partCall reads one response part as a call (callsFromChat's reading).
func partCall(chat, turnID string, p any) (callView, bool) {
	pm, _ := p.(map[string]any)
	if pm["kind"] != "toolCall" {
		return callView{}, false
	}
	tc, _ := pm["toolCall"].(map[string]any)
	id, _ := tc["toolCallId"].(string)
	if tc == nil || id == "" {
		return callView{}, false
	}
	status, _ := tc["status"].(string)
	return callView{key: callKey{chat, turnID, id}, tc: tc, state: status}, true
}

// freshStatusLocked is the call's status in the client's current rendered
// state, which is never older than any Dispatched outcome already observed.
func (x *Executor) freshStatusLocked(k callKey) (string, bool) {
	var cst, sst map[string]any
	if st, ok := x.client.State(k.Chat); ok {
		cst = st
	} else if st, ok := x.client.State(x.chatSession[k.Chat]); ok {
		sst = st
	}
	return statusOf(cst, sst, k, x.clientID)
}

// statusOf is viewOf(…).status(k) without building the view: it runs for
// every own call on every event.
func statusOf(chatState, sessionState map[string]any, k callKey, clientID string) (string, bool) {
	if chatState != nil {
		turn, _ := chatState["activeTurn"].(map[string]any)
		if id, _ := turn["id"].(string); id != k.TurnID {
			return "", true
		}
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if pm["kind"] != "toolCall" {
				continue
			}
			tc, _ := pm["toolCall"].(map[string]any)
			if tc["toolCallId"] == k.ToolCallID {
				s, _ := tc["status"].(string)
				return s, true
			}
		}
		return "", true
	}
	v, ok := viewOf(nil, sessionState, k.Chat, clientID)
	if !ok {
		return "", false
	}
	return v.status(k), true
}

// reconcileLocked is where every decision about the calls of one chat is
// made, against the last processed state of the chat (docs/ahp.md §5.4).
func (x *Executor) reconcileLocked(chat string, fx *effects) {
	v, ok := x.viewLocked(chat)
	if !ok {
		return // nothing known (e.g. re-subscribing after a fresh initialize)
	}
	var mine []*entry
	for k, e := range x.runs {
		if k.Chat == chat {
			mine = append(mine, e)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].key.ToolCallID < mine[j].key.ToolCallID })
	fr := fresh{x: x, chat: chat}
	for _, e := range mine {
		if x.pollLocked(e) {
			fr.read = false // the state to compare with is the one after this outcome
		}
		now := v.status(e.key)
		switch e.phase {
		case phaseSending:
			// The outcome is not known yet; the state may show our own
			// optimistic action, so it says nothing.
		case phaseRunning:
			if now != e.forStatus {
				x.log.Info("toolexec: call is no longer "+e.forStatus+"; cancelling the run", "chat", chat, "toolCallId", e.key.ToolCallID, "status", orGone(now))
				e.cancel()
				delete(x.runs, e.key)
			}
		case phaseFinished:
			fresh, known := fr.status(e.key)
			switch {
			case e.retry && known && fresh == e.forStatus:
				x.sendLocked(e, fx)
			case e.retry && known && now != e.forStatus:
				x.dropLocked(e, fresh)
			case e.retry:
			case now != e.forStatus:
				x.dropLocked(e, now)
			case known && fresh == e.forStatus:
				x.sendLocked(e, fx)
			}
		case phaseDone:
			x.pruneWithLocked(e, now, &fr)
		}
	}
	for _, c := range v.calls {
		if c.state != statusRunning && c.state != statusPending {
			continue // most calls of a long turn: checked first, it is the cheapest
		}
		if x.runs[c.key] != nil || !c.ours(x.clientID) {
			continue
		}
		if fresh, known := fr.status(c.key); known && fresh != c.state {
			continue // already moved on; the queued event will say so
		}
		x.newCallLocked(c, fx)
	}
}

// pruneLocked forgets a handled call once it has left the status it was
// handled in, both in event order (now) and in the client's current state:
// a rejected or timed-out completion is rolled back to running, and that
// call must not be run a second time.
func (x *Executor) pruneLocked(e *entry, now string) {
	x.pruneWithLocked(e, now, &fresh{x: x, chat: e.key.Chat})
}

func (x *Executor) pruneWithLocked(e *entry, now string, fr *fresh) {
	if e.phase != phaseDone || now == e.forStatus {
		return
	}
	if fresh, known := fr.status(e.key); known && fresh != e.forStatus {
		delete(x.runs, e.key)
	}
}

// fresh answers freshStatusLocked for the calls of one chat from one
// reading of the client's current state, indexed on first use. A reconcile
// asks for many calls — every own call the lagging event still shows
// running after its completion was echoed — and reading the state per call
// made n calls in flight cost O(n²) per event (issue 28).
type fresh struct {
	x     *Executor
	chat  string
	read  bool
	v     *view
	known bool
}

func (f *fresh) status(k callKey) (string, bool) {
	if !f.read {
		f.read = true
		if st, ok := f.x.client.State(f.chat); ok {
			f.v, f.known = f.x.freshViews.of(f.chat, st), true
		} else if st, ok := f.x.client.State(f.x.chatSession[f.chat]); ok {
			f.v, f.known = viewOf(nil, st, f.chat, f.x.clientID)
		}
	}
	if !f.known {
		return "", false
	}
	return f.v.status(k), true
}

func (x *Executor) dropLocked(e *entry, status string) {
	x.log.Info("toolexec: call is no longer "+e.forStatus+"; result not sent", "chat", e.key.Chat, "toolCallId", e.key.ToolCallID, "status", orGone(status))
	delete(x.runs, e.key)
}

func orGone(s string) string {
	if s == "" {
		return "gone"
	}
	return s
}

func (x *Executor) sessionOfLocked(chat string) string {
	if s, ok := x.chatSession[chat]; ok {
		return s
	}
	for s, st := range x.sessions {
		if contains(chatURIs(st), chat) {
			x.chatSession[chat] = s
			return s
		}
	}
	return ""
}

// newCallLocked handles an own call seen for the first time in this status.
func (x *Executor) newCallLocked(c callView, fx *effects) {
	session := x.sessionOfLocked(c.key.Chat)
	name, _ := c.tc["toolName"].(string)
	runner := x.runnerFor(session)
	known := runner != nil && lookup(runner, name)
	e := &entry{key: c.key, session: session, forStatus: c.state, info: callInfo(session, c)}
	switch {
	case c.state == statusPending && known:
		return // wait for the confirmation; the host or user decides
	case c.state == statusPending:
		x.log.Warn("toolexec: denying a call to an unknown tool", "tool", name, "chat", c.key.Chat, "toolCallId", c.key.ToolCallID)
		e.action = wire.NewToolCallDenied(c.key.TurnID, c.key.ToolCallID, fmt.Sprintf("ahpls does not provide the tool %q", name))
		e.phase = phaseFinished
		x.runs[c.key] = e
		x.sendLocked(e, fx)
	case !known:
		x.log.Warn("toolexec: failing a call to an unknown tool", "tool", name, "chat", c.key.Chat, "toolCallId", c.key.ToolCallID)
		e.action = wire.NewToolCallComplete(c.key.TurnID, c.key.ToolCallID, unknownToolResult(name))
		e.phase = phaseFinished
		x.runs[c.key] = e
		x.sendLocked(e, fx)
	default:
		ctx, cancel := context.WithCancel(x.ctx)
		e.cancel = cancel
		e.phase = phaseRunning
		x.runs[c.key] = e
		x.wg.Add(1)
		go x.run(ctx, cancel, e, runner, c.tc["toolInput"])
	}
}

func unknownToolResult(name string) wire.ToolCallResult {
	return wire.ToolCallResult{
		Success:          false,
		PastTenseMessage: wire.Plain(fmt.Sprintf("Tool %q is not available", name)),
		Error:            &wire.ToolCallError{Message: fmt.Sprintf("Tool %q is not available on this client", name), Code: tools.CodeUnknownTool},
	}
}

// runnerFor asks Options.Tools, surviving a panicking or nil-pointer
// implementation (the call is then an unknown tool).
func (x *Executor) runnerFor(session string) (r Runner) {
	defer func() {
		if p := recover(); p != nil {
			x.log.Error("toolexec: Tools func panicked", "session", session, "panic", p)
			r = nil
		}
	}()
	return x.toolsFor(session)
}

func lookup(r Runner, name string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, ok = r.Lookup(name)
	return ok
}

func (x *Executor) sendLocked(e *entry, fx *effects) {
	e.phase = phaseSending
	e.retry = false
	e.sent = nil
	fx.add(func() { x.send(e) })
}

// send dispatches the entry's action. Its outcome is read later, in event
// order (pollLocked): the client resolves a Dispatched before it emits the
// state change that follows, so every outcome is seen by the next
// reconcile of that chat.
func (x *Executor) send(e *entry) {
	d, err := x.client.Dispatch(e.key.Chat, e.action)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.runs[e.key] != e {
		return
	}
	if err != nil {
		if errors.Is(err, ahpclient.ErrNotConnected) {
			x.log.Info("toolexec: not connected; result kept until the call is seen running again", "chat", e.key.Chat, "toolCallId", e.key.ToolCallID)
			e.phase, e.retry = phaseFinished, true
			return
		}
		x.log.Error("toolexec: could not dispatch", "chat", e.key.Chat, "toolCallId", e.key.ToolCallID, "err", err)
		e.phase = phaseDone
		return
	}
	if d == nil { // a Host that tracks nothing: treat as delivered
		e.phase = phaseDone
		return
	}
	e.sent = d
	x.pollLocked(e)
	// The echo may have been processed before e.sent was set; then no
	// later event of this chat needs to come for the tombstone to go.
	if v, ok := x.viewLocked(e.key.Chat); ok {
		x.pruneLocked(e, v.status(e.key))
	}
}

// pollLocked reads the outcome of e's dispatch if it has come, and
// reports whether it had.
func (x *Executor) pollLocked(e *entry) bool {
	if e.phase != phaseSending || e.sent == nil {
		return false
	}
	select {
	case <-e.sent.Done():
	default:
		return false
	}
	err := e.sent.Err()
	e.sent = nil
	switch {
	case err == nil:
		e.phase = phaseDone
	case errors.Is(err, ahpclient.ErrConnectionLost), errors.Is(err, ahpclient.ErrNotConnected):
		x.log.Info("toolexec: dispatch lost with the connection; will re-check the call", "chat", e.key.Chat, "toolCallId", e.key.ToolCallID)
		e.phase, e.retry = phaseFinished, true
	default:
		// Rejected or never echoed: the host decided; never retry (§5.4).
		x.log.Warn("toolexec: host did not take our action", "chat", e.key.Chat, "toolCallId", e.key.ToolCallID, "err", err)
		e.phase = phaseDone
	}
	return true
}

// finish records a run's result and delivers it if the call is still ours
// to complete.
func (x *Executor) finish(e *entry, res tools.Result) {
	var fx effects
	x.mu.Lock()
	if x.stopped || x.runs[e.key] != e || e.phase != phaseRunning {
		x.mu.Unlock()
		return
	}
	e.cancel = nil
	e.action = wire.NewToolCallComplete(e.key.TurnID, e.key.ToolCallID, wireResult(res, e.info))
	e.phase = phaseFinished
	x.reconcileLocked(e.key.Chat, &fx)
	x.mu.Unlock()
	fx.run()
}

// stillRunning reports whether progress for e may be streamed now.
func (x *Executor) stillRunning(e *entry) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stopped || x.runs[e.key] != e || e.phase != phaseRunning {
		return false
	}
	fresh, known := x.freshStatusLocked(e.key)
	return !known || fresh == statusRunning
}

// ---- reading generic state ----

func chatURIs(session map[string]any) []string {
	l, _ := session["chats"].([]any)
	out := make([]string, 0, len(l))
	for _, c := range l {
		if m, ok := c.(map[string]any); ok {
			if r, ok := m["resource"].(string); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

type inputRequest struct {
	Kind, Chat, TurnID, ClientID string
	ToolCall                     map[string]any
}

func inputRequests(session map[string]any) []inputRequest {
	l, _ := session["inputNeeded"].([]any)
	out := make([]inputRequest, 0, len(l))
	for _, r := range l {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		ir := inputRequest{}
		ir.Kind, _ = m["kind"].(string)
		ir.Chat, _ = m["chat"].(string)
		ir.TurnID, _ = m["turnId"].(string)
		ir.ClientID, _ = m["clientId"].(string)
		ir.ToolCall, _ = m["toolCall"].(map[string]any)
		out = append(out, ir)
	}
	return out
}

func callsFromChat(chat string, st map[string]any) []callView {
	turn, _ := st["activeTurn"].(map[string]any)
	turnID, _ := turn["id"].(string)
	parts, _ := turn["responseParts"].([]any)
	var out []callView
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if pm["kind"] != "toolCall" {
			continue
		}
		tc, _ := pm["toolCall"].(map[string]any)
		id, _ := tc["toolCallId"].(string)
		if tc == nil || id == "" {
			continue
		}
		status, _ := tc["status"].(string)
		out = append(out, callView{key: callKey{chat, turnID, id}, tc: tc, state: status})
	}
	return out
}

// callsFromInputNeeded lists our calls of an unfollowed chat from the
// session's inputNeeded entries (docs/ahp.md §4.6).
func callsFromInputNeeded(chat string, session map[string]any, clientID string) []callView {
	var out []callView
	for _, r := range inputRequests(session) {
		if r.Chat != chat || r.ToolCall == nil {
			continue
		}
		switch r.Kind {
		case wire.InputToolClientExecution:
			if r.ClientID != clientID {
				continue
			}
		case wire.InputToolConfirmation:
		default:
			continue
		}
		id, _ := r.ToolCall["toolCallId"].(string)
		status, _ := r.ToolCall["status"].(string)
		if id == "" {
			continue
		}
		out = append(out, callView{key: callKey{chat, r.TurnID, id}, tc: r.ToolCall, state: status})
	}
	return out
}

func callInfo(session string, c callView) CallInfo {
	ci := CallInfo{Session: session, Chat: c.key.Chat, TurnID: c.key.TurnID, ToolCallID: c.key.ToolCallID}
	ci.ToolName, _ = c.tc["toolName"].(string)
	ci.DisplayName, _ = c.tc["displayName"].(string)
	switch m := c.tc["invocationMessage"].(type) {
	case string:
		ci.Invocation = m
	case map[string]any:
		ci.Invocation, _ = m["markdown"].(string)
	}
	return ci
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
