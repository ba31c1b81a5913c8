package ahpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// RootURI is the connection-level channel.
const RootURI = "ahp-root://"

// DefaultProtocolVersions is what ahpls offers, most preferred first (§2.1):
// every version a wire dialect speaks, the 1.x dialect ("1.0.0", "0.9.0")
// ahead of 0.8.0 … 0.5.1. Current hosts accept only 1.0.0 and 0.9.0 and pick
// the highest compatible entry; older hosts take the highest they implement.
var DefaultProtocolVersions = wire.ProtocolVersions()

// DefaultReadLimit bounds one inbound frame (32 MiB); a larger frame closes
// the socket and the client reconnects.
const DefaultReadLimit = 32 << 20

// Implementation is clientInfo / serverInfo (logs only, never feature gating).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Backoff shapes the delay between reconnect attempts: Initial·Multiplier^n
// capped at Max, minus up to Jitter (0..1) of it at random, so a fleet of
// clients does not reconnect in lockstep after a host restart.
type Backoff struct {
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
	Jitter     float64
}

// Delay returns the wait before reconnect attempt n (0-based); rnd returns
// values in [0,1).
func (b Backoff) Delay(n int, rnd func() float64) time.Duration {
	d := float64(b.Initial) * math.Pow(b.Multiplier, float64(n))
	if d > float64(b.Max) || math.IsInf(d, 0) || math.IsNaN(d) {
		d = float64(b.Max)
	}
	d -= d * b.Jitter * rnd()
	if d < 0 {
		d = 0
	}
	return time.Duration(d)
}

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	// URL is the host's WebSocket endpoint (ws:// or wss://).
	URL string
	// Header is sent with the upgrade request (connection auth, §1).
	Header http.Header

	// ClientID, when empty, is StableClientID(StateDir, WorkspaceKey).
	ClientID     string
	StateDir     string
	WorkspaceKey string

	ClientInfo       Implementation // default {Name:"ahpls"}
	ProtocolVersions []string       // default DefaultProtocolVersions
	Locale           string

	Logger *slog.Logger     // default: text handler on stderr
	Now    func() time.Time // reducer clock; default time.Now

	RequestTimeout time.Duration // per request when ctx has no deadline; default 30s
	PendingTimeout time.Duration // give up on a never-echoed action; default 30s
	PingInterval   time.Duration // ping after this much silence; default 20s; <0 disables
	PingTimeout    time.Duration // default 10s
	Backoff        Backoff       // default 250ms ×2 up to 30s, jitter 0.5
	ReadLimit      int64         // default DefaultReadLimit

	// Budget for what the host can make ahpls hold (issue 16). Host→client
	// requests run on MaxConcurrentRequests workers (default 4); up to
	// RequestQueue more (default 64, at most RequestQueueBytes of params,
	// default 4 MiB) wait; beyond that the host gets CodeBusy. Encoded
	// frames waiting for or in a write are bounded by WriteBudget (default
	// DefaultWriteBudget); a host that makes no room for 10 s loses the
	// connection, and the client reconnects.
	MaxConcurrentRequests int
	RequestQueue          int
	RequestQueueBytes     int64
	WriteBudget           int64
	// WriteTimeout bounds one write and the wait for budget room; default
	// 10s. A host that makes no progress for that long is dropped.
	WriteTimeout time.Duration

	// Session joining. Sessions are joined explicitly; with Auto, every
	// session with a working directory covering one of Folders is joined and
	// left as sessions come, go and move (§2.6). JoinNested also counts a
	// working directory inside a folder.
	Sessions   []string
	Auto       bool
	Folders    []string
	JoinNested bool

	// JoinQuiet and JoinMaxDelay coalesce join work for bursts of root
	// session notifications: the join decision runs once the notifications
	// have been quiet for JoinQuiet (default 25ms), and at least every
	// JoinMaxDelay (default 250ms) while they keep coming, so a burst of
	// 20,000 sessionAdded costs a handful of evaluations and no subscribe
	// for a session added and removed within it.
	JoinQuiet    time.Duration
	JoinMaxDelay time.Duration

	// ChatTurns is subscribe.view.turns for chats (0 = host default); ahpls
	// needs only the active turn, so 1 is a good value.
	ChatTurns int

	// Trace sees every frame, both ways (debugging, schema validation).
	Trace func(FrameDirection, []byte)
}

// Handler answers a reverse request from the host (resourceRead, …).
// Return an *RPCError to choose the code; any other error is sent as -32603.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// EventKind classifies an Event.
type EventKind int

const (
	EventConnected      EventKind = iota // handshake done; Resumed says reconnect succeeded
	EventDisconnected                    // socket lost; Err says why
	EventStateChanged                    // Channel's rendered State changed (Action, if one caused it)
	EventSessionJoined                   // Channel (a session) is subscribed and live
	EventSessionLeft                     // Channel (a session) is no longer followed; Reason
	EventChannelDropped                  // Channel dropped: Reason "missing", "removed", "failed" (Err: the refusal)
	EventActionRejected                  // own action rolled back; Reason is the host's rejectionReason
	EventActionTimedOut                  // own action never echoed; rolled back
	EventNotification                    // root/* or auth/required notification: Method, Params
	EventBadFrame                        // the host sent something unusable; Err
	EventDialectChanged                  // Dialect() changed (new handshake or enablement shape learnt); Reason "<version> <shape>"
)

var eventNames = [...]string{"connected", "disconnected", "stateChanged", "sessionJoined", "sessionLeft", "channelDropped", "actionRejected", "actionTimedOut", "notification", "badFrame", "dialectChanged"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", int(k))
}

// Event is delivered to listeners in the order things happened. State and
// Action are shared with the mirror: read them, never modify them.
type Event struct {
	Kind        EventKind
	Channel     string
	ChannelKind reduce.Kind
	State       map[string]any
	Action      map[string]any
	ClientSeq   int64
	Reason      string
	Method      string
	Params      json.RawMessage
	Resumed     bool
	Err         error
}

// Dispatched tracks one dispatched action until it is echoed (Err nil),
// rejected (*RejectedError), never echoed (ErrActionTimeout) or lost with
// the connection (ErrConnectionLost).
type Dispatched struct {
	Channel   string
	ClientSeq int64
	Action    map[string]any

	sent time.Time
	once sync.Once
	done chan struct{}
	err  error
}

func (d *Dispatched) resolve(err error) {
	d.once.Do(func() { d.err = err; close(d.done) })
}

// Done is closed when the outcome is known.
func (d *Dispatched) Done() <-chan struct{} { return d.done }

// Err is the outcome once Done is closed.
func (d *Dispatched) Err() error {
	select {
	case <-d.done:
		return d.err
	default:
		return nil
	}
}

// Wait blocks until the outcome is known or ctx ends.
func (d *Dispatched) Wait(ctx context.Context) error {
	select {
	case <-d.done:
		return d.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type channelState struct {
	uri     string
	kind    reduce.Kind
	session string // owning session, for chats
	live    bool   // snapshot installed
	buffer  []*actionEnvelope
	fromSeq int64
	// applied is the highest serverSeq applied to confirmed (fromSeq after
	// a snapshot): each serverSeq is applied at most once per channel.
	applied   int64
	confirmed map[string]any
	rendered  map[string]any
	pending   []*Dispatched
	// seenCustomizations is the customization list last inspected for the
	// enablement shape (sessions only).
	seenCustomizations []any
}

type actionEnvelope struct {
	Channel   string `json:"channel"`
	ServerSeq int64  `json:"serverSeq"`
	Origin    *struct {
		ClientID  string `json:"clientId"`
		ClientSeq int64  `json:"clientSeq"`
	} `json:"origin"`
	RejectionReason *string         `json:"rejectionReason"`
	Action          json.RawMessage `json:"action"`
}

type snapshot struct {
	Resource string          `json:"resource"`
	State    json.RawMessage `json:"state"`
	FromSeq  int64           `json:"fromSeq"`
}

// clientSeq is one counter per process, strictly increasing, never reset (§3).
var clientSeq atomic.Int64

// Client is an AHP active client: it keeps one WebSocket to the host alive
// (reconnecting with replay or snapshot), mirrors the state of the channels it
// follows with write-ahead reconciliation, joins sessions, and answers the
// host's reverse requests. Create with New, drive with Run.
type Client struct {
	opts     Options
	log      *slog.Logger
	clientID string
	now      reduce.Clock

	handlersMu sync.RWMutex
	handlers   map[string]Handler

	q *eventQueue

	// inbound queues host→client requests for the workers (onRequest);
	// queuedBytes is the size of the params waiting in it.
	inbound     chan inboundRequest
	queuedBytes atomic.Int64

	mu              sync.Mutex
	deferred        []func()
	conn            *rpcConn // nil while disconnected
	ready           chan struct{}
	protocolVersion string
	dialect         wire.Dialect         // from protocolVersion; nil before the first handshake
	observed        wire.EnablementShape // enablement shape seen in session state since initialize
	initResult      json.RawMessage
	serverSeq       int64
	everConnected   bool
	channels        map[string]*channelState
	summaries       map[string]map[string]any
	touched         map[string]bool // non-nil while listSessions pages are fetched
	explicit        map[string]bool
	folders         []string
	joined          map[string]bool
	failed          map[string]bool
	activeClient    map[string]any
	closed          bool
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

	stop     chan struct{}
	stopOnce sync.Once
}

// New validates opts and returns a Client; nothing connects until Run.
func New(opts Options) (*Client, error) {
	if opts.URL == "" {
		return nil, errors.New("ahpclient: Options.URL is required")
	}
	if opts.ClientID == "" {
		id, err := StableClientID(opts.StateDir, opts.WorkspaceKey)
		if err != nil {
			return nil, err
		}
		opts.ClientID = id
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo.Name = "ahpls"
	}
	if len(opts.ProtocolVersions) == 0 {
		opts.ProtocolVersions = DefaultProtocolVersions
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	if opts.PendingTimeout <= 0 {
		opts.PendingTimeout = 30 * time.Second
	}
	if opts.PingInterval == 0 {
		opts.PingInterval = 20 * time.Second
	}
	if opts.PingTimeout <= 0 {
		opts.PingTimeout = 10 * time.Second
	}
	if opts.Backoff.Initial <= 0 {
		opts.Backoff.Initial = 250 * time.Millisecond
	}
	if opts.Backoff.Max <= 0 {
		opts.Backoff.Max = 30 * time.Second
	}
	if opts.Backoff.Multiplier < 1 {
		opts.Backoff.Multiplier = 2
	}
	if opts.Backoff.Jitter <= 0 || opts.Backoff.Jitter > 1 {
		opts.Backoff.Jitter = 0.5
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = DefaultReadLimit
	}
	if opts.MaxConcurrentRequests <= 0 {
		opts.MaxConcurrentRequests = 4
	}
	if opts.RequestQueue <= 0 {
		opts.RequestQueue = 64
	}
	if opts.RequestQueueBytes <= 0 {
		opts.RequestQueueBytes = 4 << 20
	}
	if opts.WriteBudget <= 0 {
		opts.WriteBudget = DefaultWriteBudget
	}
	if opts.JoinQuiet <= 0 {
		opts.JoinQuiet = 25 * time.Millisecond
	}
	if opts.JoinMaxDelay < opts.JoinQuiet {
		opts.JoinMaxDelay = max(250*time.Millisecond, opts.JoinQuiet)
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	c := &Client{
		opts:      opts,
		log:       opts.Logger,
		clientID:  opts.ClientID,
		now:       reduce.Clock(opts.Now),
		handlers:  map[string]Handler{},
		q:         newEventQueue(),
		ready:     make(chan struct{}),
		channels:  map[string]*channelState{},
		summaries: map[string]map[string]any{},
		explicit:  map[string]bool{},
		joined:    map[string]bool{},
		failed:    map[string]bool{},
		rejoin:    map[string]rejoinState{},
		stop:      make(chan struct{}),
		inbound:   make(chan inboundRequest, opts.RequestQueue),
	}
	for range opts.MaxConcurrentRequests {
		go c.worker()
	}
	for _, s := range opts.Sessions {
		c.explicit[s] = true
	}
	c.folders = append([]string(nil), opts.Folders...)
	go c.q.run()
	go c.sweep()
	return c, nil
}

// ClientID is the id sent in initialize and reconnect.
func (c *Client) ClientID() string { return c.clientID }

// ProtocolVersion is the negotiated dialect ("" before the first handshake).
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.protocolVersion
}

// Dialect is the version seam for the current connection: the dialect of
// the negotiated protocol version (wire.SelectDialect), refined by what the
// host's state shows. For a 0.x host the enablement shape is learnt from the
// customizations of the sessions this client follows (wire.DetectEnablement,
// docs/ahp.md §4.7): a 0.8.0 host that sends `enablement` lists is treated
// like a 1.x host for enablement (EnablementScoped), one that sends only
// `enabled` booleans as the 0.8.0 snapshot (EnablementBoolean), and while no
// plugin or MCP server has been seen the shape stays EnablementUnknown
// (publish both shapes). Once learnt the shape sticks until the next fresh
// initialize (a resumed reconnect keeps it); scoped wins over boolean, as
// any list means the host speaks lists. A 1.x dialect is always scoped.
// EventDialectChanged reports every change.
//
// It is nil before the first successful handshake. The value is immutable;
// call Dialect again after EventDialectChanged.
func (c *Client) Dialect() wire.Dialect {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dialectLocked()
}

func (c *Client) dialectLocked() wire.Dialect {
	if c.dialect == nil || c.observed == wire.EnablementUnknown {
		return c.dialect
	}
	return c.dialect.WithEnablement(c.observed)
}

// InitializeResult is the raw result of the last successful initialize.
func (c *Client) InitializeResult() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initResult
}

// ServerSeq is the highest serverSeq seen (host-wide, §2.2).
func (c *Client) ServerSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverSeq
}

// Connected reports whether a handshake has completed on the current socket.
func (c *Client) Connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil
}

// WaitConnected blocks until a handshake completes or ctx ends.
func (c *Client) WaitConnected(ctx context.Context) error {
	c.mu.Lock()
	ready := c.ready
	c.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// OnEvent registers a listener; events arrive one at a time, in order, on a
// goroutine of their own (a listener may call back into the Client). The
// returned func removes the listener.
func (c *Client) OnEvent(f func(Event)) (remove func()) { return c.q.add(f) }

// Handle registers the handler for a host→client request method (the
// reverse resource* family, createResourceWatch). Unregistered methods are
// answered -32601.
func (c *Client) Handle(method string, h Handler) {
	c.handlersMu.Lock()
	defer c.handlersMu.Unlock()
	if h == nil {
		delete(c.handlers, method)
		return
	}
	c.handlers[method] = h
}

// Close stops Run, closes the socket and the event queue.
func (c *Client) Close() error {
	c.stopOnce.Do(func() {
		close(c.stop)
		c.mu.Lock()
		c.closed = true
		conn := c.conn
		c.mu.Unlock()
		if conn != nil {
			conn.Close(websocket.StatusNormalClosure, "client closing")
		}
		c.q.close()
	})
	return nil
}

// unlock releases c.mu, then runs the work queued under it (network sends
// must not happen with the lock held).
func (c *Client) unlock() {
	fs := c.deferred
	c.deferred = nil
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (c *Client) later(f func()) { c.deferred = append(c.deferred, f) }

func (c *Client) emitLocked(e Event) { c.q.push(e) }

// ---- connection lifecycle ----

// Run connects and keeps the connection alive until ctx ends, Close is
// called, or the host refuses the handshake (an *UnsupportedVersionError or
// *InitializeError, returned without retrying).
func (c *Client) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	attempt := 0
	for {
		handshook, err := c.connectOnce(ctx)
		var uv *UnsupportedVersionError
		var ie *InitializeError
		if errors.As(err, &uv) || errors.As(err, &ie) {
			c.log.Error("ahp: handshake refused; not reconnecting", "err", err)
			return err
		}
		if ctx.Err() != nil {
			select {
			case <-c.stop:
				return ErrClosed
			default:
				return ctx.Err()
			}
		}
		if handshook {
			attempt = 0
		}
		d := c.opts.Backoff.Delay(attempt, rand.Float64)
		attempt++
		c.log.Info("ahp: disconnected; reconnecting", "err", err, "in", d)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

func (c *Client) connectOnce(ctx context.Context) (handshook bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	ws, _, err := websocket.Dial(dctx, c.opts.URL, &websocket.DialOptions{HTTPHeader: c.opts.Header})
	cancel()
	if err != nil {
		return false, fmt.Errorf("ahpclient: dial: %w", err)
	}
	ws.SetReadLimit(c.opts.ReadLimit)
	conn := newRPCConn(ws, c.log, c.opts.Trace, c.opts.WriteBudget)
	conn.writeTimeout = c.opts.WriteTimeout
	conn.onNotify = func(m string, p json.RawMessage) { c.onNotify(conn, m, p) }
	conn.onRequest = func(id json.RawMessage, m string, p json.RawMessage) { c.onRequest(conn, id, m, p) }
	conn.onBadFrame = func(err error) {
		c.mu.Lock()
		c.emitLocked(Event{Kind: EventBadFrame, Err: err})
		c.mu.Unlock()
	}
	readErr := make(chan error, 1)
	go func() { readErr <- conn.readLoop(ctx) }()

	if err := c.handshake(ctx, conn); err != nil {
		conn.Close(websocket.StatusNormalClosure, "handshake failed")
		ws.CloseNow()
		<-readErr
		return false, err
	}
	go c.keepAlive(conn)
	go c.afterHandshake(conn)

	err = <-readErr
	// The read loop ended (host gone, read error, ping timeout): release
	// the socket now, whatever closed it from the other side (issue 16).
	ws.CloseNow()
	c.mu.Lock()
	if c.conn == conn {
		c.conn = nil
		c.ready = make(chan struct{})
	}
	c.emitLocked(Event{Kind: EventDisconnected, Err: err})
	c.unlock()
	return true, err
}

func (c *Client) handshake(ctx context.Context, conn *rpcConn) error {
	c.mu.Lock()
	resume := c.everConnected
	var subs []string
	if resume {
		subs = c.liveURIsLocked()
	}
	seq := c.serverSeq
	c.mu.Unlock()

	hctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	if resume {
		params := map[string]any{"channel": RootURI, "clientId": c.clientID, "lastSeenServerSeq": seq, "subscriptions": subs}
		_, err := conn.Call(hctx, "reconnect", params, func(res json.RawMessage, err error) {
			if err == nil {
				c.onReconnected(conn, res)
			}
		})
		if err == nil {
			c.setConnected(conn, true)
			return nil
		}
		var re *RPCError
		if !errors.As(err, &re) {
			return err
		}
		c.log.Info("ahp: reconnect refused; initializing afresh", "err", err)
	}
	params := map[string]any{
		"channel":              RootURI,
		"protocolVersions":     c.opts.ProtocolVersions,
		"clientId":             c.clientID,
		"clientInfo":           c.opts.ClientInfo,
		"initialSubscriptions": []string{RootURI},
		"capabilities":         map[string]any{},
	}
	if c.opts.Locale != "" {
		params["locale"] = c.opts.Locale
	}
	// The hook runs on the read loop before any later frame is handled, so
	// the dialect is chosen before the first action is reduced.
	var selErr error
	_, err := conn.Call(hctx, "initialize", params, func(res json.RawMessage, err error) {
		if err == nil {
			selErr = c.onInitialized(conn, res)
		}
	})
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) {
			if re.Code == CodeUnsupportedProtocolVersion {
				return newRefusal(c.opts.ProtocolVersions, re)
			}
			return &InitializeError{Err: re}
		}
		return err
	}
	if selErr != nil {
		return selErr
	}
	c.setConnected(conn, false)
	return nil
}

func (c *Client) setConnected(conn *rpcConn, resumed bool) {
	c.mu.Lock()
	c.conn = conn
	c.everConnected = true
	close(c.ready)
	c.emitLocked(Event{Kind: EventConnected, Resumed: resumed})
	c.unlock()
}

// liveURIsLocked: every channel with a snapshot, root first (reconnect's
// subscription list must name root, every session and every chat).
func (c *Client) liveURIsLocked() []string {
	out := []string{RootURI}
	for uri, ch := range c.channels {
		if ch.live && uri != RootURI {
			out = append(out, uri)
		}
	}
	sort.Strings(out[1:])
	return out
}

// onInitialized accepts the host's protocolVersion and installs the
// snapshots. A version ahpls does not speak (a host that ignored the offer)
// installs nothing and fails the handshake for good.
func (c *Client) onInitialized(conn *rpcConn, res json.RawMessage) error {
	var r struct {
		ProtocolVersion string     `json:"protocolVersion"`
		ServerSeq       int64      `json:"serverSeq"`
		Snapshots       []snapshot `json:"snapshots"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		c.log.Warn("ahp: bad initialize result", "err", err)
	}
	d, err := wire.SelectDialect(r.ProtocolVersion)
	if err != nil {
		c.log.Error("ahp: unusable protocol version", "err", err)
		return &UnsupportedVersionError{
			Offered: append([]string(nil), c.opts.ProtocolVersions...),
			Chosen:  r.ProtocolVersion,
			chose:   true,
		}
	}
	c.mu.Lock()
	before := c.dialectLocked()
	c.protocolVersion = r.ProtocolVersion
	// A fresh initialize may reach another host build: learn its
	// enablement shape again from the snapshots that follow.
	c.dialect, c.observed = d, wire.EnablementUnknown
	c.emitDialectChangeLocked(before)
	c.initResult = res
	if r.ServerSeq > c.serverSeq {
		c.serverSeq = r.ServerSeq
	}
	// A fresh initialize resumes nothing: every followed channel must be
	// subscribed again (afterHandshake does it) and pending work is lost.
	for _, ch := range c.channels {
		ch.live = false
		ch.buffer = nil
		ch.seenCustomizations = nil
		c.failPendingLocked(ch, ErrConnectionLost)
	}
	root := c.ensureChannelLocked(RootURI, reduce.Root, "")
	root.live, root.confirmed, root.fromSeq = true, map[string]any{}, r.ServerSeq
	for _, s := range r.Snapshots {
		c.installSnapshotLocked(s)
	}
	c.renderLocked(root, nil)
	c.unlock()
	return nil
}

func (c *Client) onReconnected(conn *rpcConn, res json.RawMessage) {
	var r struct {
		Type      string            `json:"type"`
		Actions   []*actionEnvelope `json:"actions"`
		Missing   []string          `json:"missing"`
		Snapshots []snapshot        `json:"snapshots"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		c.log.Warn("ahp: bad reconnect result", "err", err)
	}
	c.mu.Lock()
	switch r.Type {
	case "snapshot":
		seen := map[string]bool{}
		for _, s := range r.Snapshots {
			if ch := c.channels[s.Resource]; ch != nil && ch.live {
				seen[s.Resource] = true
				c.installSnapshotLocked(s)
			}
		}
		for uri, ch := range c.channels {
			if ch.live && !seen[uri] {
				r.Missing = append(r.Missing, uri)
			}
		}
	default: // "replay"
		for _, env := range r.Actions {
			c.applyEnvelopeLocked(env)
		}
	}
	for _, uri := range r.Missing {
		c.dropChannelLocked(uri, "missing", nil)
	}
	// §2.4: rebuild confirmed state and clear pending — dispatches that were
	// not replayed were lost with the socket.
	for _, ch := range c.channels {
		if len(ch.pending) > 0 {
			c.failPendingLocked(ch, ErrConnectionLost)
			c.renderLocked(ch, nil)
		} else if r.Type == "snapshot" && ch.live {
			c.renderLocked(ch, nil)
		}
	}
	c.unlock()
}

// afterHandshake re-subscribes channels that lost their state, refreshes the
// session list (root notifications are not replayed) and re-asserts the
// active-client entry.
func (c *Client) afterHandshake(conn *rpcConn) {
	c.mu.Lock()
	var resub []*channelState
	for _, ch := range c.channels {
		if !ch.live && ch.uri != RootURI {
			resub = append(resub, ch)
		}
	}
	c.mu.Unlock()
	for _, ch := range resub {
		go c.subscribeOn(conn, ch.uri, ch.kind)
	}
	if err := c.refreshSessions(conn); err != nil {
		c.log.Warn("ahp: listSessions failed", "err", err)
	}
	c.mu.Lock()
	for s := range c.joined {
		if ch := c.channels[s]; ch != nil && ch.live {
			c.followChatsLocked(ch)
		}
		c.assertActiveClientLocked(s)
	}
	c.unlock()
}

func (c *Client) keepAlive(conn *rpcConn) {
	if c.opts.PingInterval < 0 {
		return
	}
	tick := c.opts.PingInterval / 4
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-conn.done:
			return
		case <-t.C:
		}
		if conn.idle() < c.opts.PingInterval {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.PingTimeout)
		_, err := conn.Call(ctx, "ping", map[string]any{"channel": RootURI}, nil)
		cancel()
		if err != nil && !errors.Is(err, ErrConnectionLost) {
			c.log.Warn("ahp: ping failed; dropping the socket", "err", err)
			conn.ws.CloseNow()
			return
		}
	}
}

// sweep gives up on actions never echoed within PendingTimeout.
func (c *Client) sweep() {
	tick := c.opts.PendingTimeout / 5
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		c.mu.Lock()
		for _, ch := range c.channels {
			kept := ch.pending[:0:0]
			var expired []*Dispatched
			for _, p := range ch.pending {
				if now.Sub(p.sent) >= c.opts.PendingTimeout {
					expired = append(expired, p)
				} else {
					kept = append(kept, p)
				}
			}
			if len(expired) == 0 {
				continue
			}
			ch.pending = kept
			for _, p := range expired {
				c.log.Warn("ahp: action never echoed; rolled back", "channel", ch.uri, "clientSeq", p.ClientSeq)
				p.resolve(ErrActionTimeout)
				c.emitLocked(Event{Kind: EventActionTimedOut, Channel: ch.uri, ChannelKind: ch.kind, ClientSeq: p.ClientSeq, Action: p.Action})
			}
			c.renderLocked(ch, nil)
		}
		c.unlock()
	}
}

// ---- requests ----

func (c *Client) current() (*rpcConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.conn == nil {
		return nil, ErrNotConnected
	}
	return c.conn, nil
}

func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.opts.RequestTimeout)
}

// Call sends any client→host request (params must carry its channel) and
// returns the raw result. Host errors come back as *RPCError.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	return conn.Call(ctx, method, params, nil)
}

// ListSessions fetches every page of listSessions.
func (c *Client) ListSessions(ctx context.Context) ([]map[string]any, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	return c.listSessionsOn(ctx, conn)
}

func (c *Client) listSessionsOn(ctx context.Context, conn *rpcConn) ([]map[string]any, error) {
	var out []map[string]any
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		params := map[string]any{"channel": RootURI, "limit": 100}
		if cursor != "" {
			params["cursor"] = cursor
		}
		cctx, cancel := c.withTimeout(ctx)
		res, err := conn.Call(cctx, "listSessions", params, nil)
		cancel()
		if err != nil {
			return nil, err
		}
		var r struct {
			Items      []json.RawMessage `json:"items"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, fmt.Errorf("ahpclient: listSessions result: %w", err)
		}
		for _, it := range r.Items {
			if m, ok := decodeObject(it); ok {
				out = append(out, m)
			}
		}
		if r.NextCursor == "" {
			return out, nil
		}
		if seen[r.NextCursor] || page > 10000 {
			return out, fmt.Errorf("ahpclient: listSessions cursor %q repeats", r.NextCursor)
		}
		seen[r.NextCursor] = true
		cursor = r.NextCursor
	}
}

// refreshSessions replaces the session list with listSessions' answer,
// except for sessions a root notification touched while the pages were being
// fetched: those notifications are newer than the page that listed them.
func (c *Client) refreshSessions(conn *rpcConn) error {
	c.mu.Lock()
	c.touched = map[string]bool{}
	c.mu.Unlock()
	items, err := c.listSessionsOn(context.Background(), conn)
	c.mu.Lock()
	touched := c.touched
	c.touched = nil
	if err != nil {
		c.mu.Unlock()
		return err
	}
	fresh := map[string]map[string]any{}
	for _, it := range items {
		if uri, ok := it["resource"].(string); ok {
			fresh[uri] = it
		}
	}
	for uri := range touched {
		if sum, ok := c.summaries[uri]; ok {
			fresh[uri] = sum
		} else {
			delete(fresh, uri)
		}
	}
	c.summaries = fresh
	c.evaluateJoinsLocked()
	c.unlock()
	return nil
}

// ResourceRead reads a host resource (e.g. a referenced tool input, §5.4).
func (c *Client) ResourceRead(ctx context.Context, uri, encoding string) (data []byte, contentType string, err error) {
	params := map[string]any{"channel": RootURI, "uri": uri}
	if encoding != "" {
		params["encoding"] = encoding
	}
	res, err := c.Call(ctx, "resourceRead", params)
	if err != nil {
		return nil, "", err
	}
	var r struct {
		Data        string `json:"data"`
		Encoding    string `json:"encoding"`
		ContentType string `json:"contentType"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, "", err
	}
	if r.Encoding == "base64" {
		b, err := decodeBase64(r.Data)
		return b, r.ContentType, err
	}
	return []byte(r.Data), r.ContentType, nil
}

// ---- inbound ----

// inboundRequest is one host→client request waiting for a worker.
type inboundRequest struct {
	conn   *rpcConn
	id     json.RawMessage
	method string
	params json.RawMessage
	h      Handler
}

// BudgetStats is what the host currently makes the client hold, for
// tests and diagnostics.
type BudgetStats struct {
	QueuedRequests int   // host requests waiting for a worker
	QueuedBytes    int64 // size of their params
	WriteBytes     int64 // encoded frames waiting for or in a write, current connection
	WriteBytesPeak int64 // the most held at once on the current connection
}

// Budget reports BudgetStats.
func (c *Client) Budget() BudgetStats {
	st := BudgetStats{QueuedRequests: len(c.inbound), QueuedBytes: c.queuedBytes.Load()}
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		st.WriteBytes, st.WriteBytesPeak = conn.budget.inUse(), conn.budget.highWater()
	}
	return st
}

// CodeBusy answers a host→client request beyond the request budget.
const CodeBusy = -32000

// onRequest runs on the read loop: it queues the request for a worker or,
// when the queue is full, answers CodeBusy at once. Nothing here waits for
// a handler, so a flood costs at most the queue.
func (c *Client) onRequest(conn *rpcConn, id json.RawMessage, method string, params json.RawMessage) {
	c.handlersMu.RLock()
	h := c.handlers[method]
	c.handlersMu.RUnlock()
	if h == nil {
		conn.reply(id, nil, &RPCError{Code: CodeMethodNotFound, Message: method + " is not supported by this client"})
		return
	}
	size := int64(len(params))
	if c.queuedBytes.Add(size) <= c.opts.RequestQueueBytes {
		select {
		case c.inbound <- inboundRequest{conn, id, method, params, h}:
			return
		default:
		}
	}
	c.queuedBytes.Add(-size)
	c.log.Warn("ahp: host request refused: too many in flight", "method", method, "workers", c.opts.MaxConcurrentRequests, "queue", c.opts.RequestQueue)
	conn.reply(id, nil, &RPCError{Code: CodeBusy, Message: fmt.Sprintf("ahpls is busy: more than %d requests in flight; retry later", c.opts.MaxConcurrentRequests+c.opts.RequestQueue)})
}

// worker runs queued host requests, one at a time, off the read loop (a
// handler may read files or call back into the client).
func (c *Client) worker() {
	for {
		select {
		case <-c.stop:
			return
		case r := <-c.inbound:
			c.queuedBytes.Add(-int64(len(r.params)))
			c.serve(r)
		}
	}
}

func (c *Client) serve(r inboundRequest) {
	conn := r.conn
	select {
	case <-conn.done:
		return // the connection went while it waited; nobody to answer
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-conn.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := safeCall(ctx, r.h, r.params)
	if err != nil {
		var re *RPCError
		if !errors.As(err, &re) {
			re = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		conn.reply(r.id, nil, re)
		return
	}
	conn.reply(r.id, res, nil)
}

func safeCall(ctx context.Context, h Handler, params json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return h(ctx, params)
}

func (c *Client) onNotify(conn *rpcConn, method string, params json.RawMessage) {
	switch method {
	case "action":
		var env actionEnvelope
		if err := json.Unmarshal(params, &env); err != nil || env.Channel == "" {
			conn.bad(fmt.Errorf("bad action envelope: %v", err))
			return
		}
		c.mu.Lock()
		c.applyEnvelopeLocked(&env)
		c.unlock()
	case "root/sessionAdded", "root/sessionRemoved", "root/sessionSummaryChanged":
		var p struct {
			Summary map[string]any `json:"summary"`
			Session string         `json:"session"`
			Changes map[string]any `json:"changes"`
		}
		if m, ok := decodeObject(params); ok {
			p.Summary, _ = m["summary"].(map[string]any)
			p.Session, _ = m["session"].(string)
			p.Changes, _ = m["changes"].(map[string]any)
		}
		c.mu.Lock()
		if c.touched != nil {
			uri := p.Session
			if uri == "" {
				uri, _ = p.Summary["resource"].(string)
			}
			c.touched[uri] = true
		}
		switch method {
		case "root/sessionAdded":
			if uri, ok := p.Summary["resource"].(string); ok {
				c.summaries[uri] = p.Summary
				delete(c.failed, uri)
			}
		case "root/sessionRemoved":
			delete(c.summaries, p.Session)
			if c.joined[p.Session] {
				c.dropChannelLocked(p.Session, "removed", nil)
			}
		case "root/sessionSummaryChanged":
			if old, ok := c.summaries[p.Session]; ok {
				merged := make(map[string]any, len(old)+len(p.Changes))
				for k, v := range old {
					merged[k] = v
				}
				for k, v := range p.Changes {
					if k != "resource" {
						merged[k] = v
					}
				}
				c.summaries[p.Session] = merged
			}
		}
		c.scheduleJoinsLocked()
		c.emitLocked(Event{Kind: EventNotification, Method: method, Params: params})
		c.unlock()
	default:
		c.mu.Lock()
		c.emitLocked(Event{Kind: EventNotification, Method: method, Params: params})
		c.mu.Unlock()
	}
}

// ---- helpers ----

func decodeObject(raw json.RawMessage) (map[string]any, bool) {
	v, err := reduce.Decode(raw)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func toObject(v any) (map[string]any, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("ahpclient: encode action: %w", err)
		}
		raw = b
	}
	m, ok := decodeObject(raw)
	if !ok {
		return nil, errors.New("ahpclient: action is not a JSON object")
	}
	return m, nil
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
