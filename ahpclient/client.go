package ahpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// RootURI is the connection-level channel.
const RootURI = "ahp-root://"

// DefaultProtocolVersions is what ahpls offers, most preferred first (§2.1):
// every version a wire dialect speaks, the 1.x dialect ("1.1.0", "1.0.0",
// "0.10.0", "0.9.0") ahead of 0.8.0 … 0.5.1. 1.x hosts pick the highest
// entry caret-compatible with one they support (a 1.0 host picks 1.1.0);
// older hosts take the highest they implement.
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
	EventRetrying                        // an attempt failed or the connection ended; RetryIn until the next, Err why
)

var eventNames = [...]string{"connected", "disconnected", "stateChanged", "sessionJoined", "sessionLeft", "channelDropped", "actionRejected", "actionTimedOut", "notification", "badFrame", "dialectChanged", "retrying"}

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
	// RetryIn is the wait before the next connection attempt
	// (EventRetrying), so an editor can say "retrying in N s".
	RetryIn time.Duration
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

// channelState is one followed channel in the mirror; every field is
// guarded by mirror.mu.
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

// failPending resolves every pending action with err.
func (ch *channelState) failPending(err error) {
	for _, p := range ch.pending {
		p.resolve(err)
	}
	ch.pending = nil
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
//
// It is made of parts, one job each, whose methods it offers; each keeps
// its mutable state in one struct with the guard named at the field:
//
//   - connection (conn.go, requests.go, inbound.go): the socket, handshake,
//     reconnect, keepalive and client→host requests. Its lock guards
//     connState only.
//   - hostRequests (inbound.go): host→client requests under the request
//     budget (Handle). Its lock guards the handlers.
//   - mirror (mirror.go): per-channel confirmed and rendered state,
//     reconciliation of echoes and rejections, the handshake's and
//     reconnect's recoveries, HostMeta. Its lock guards mirrorState and
//     every channelState in it.
//   - dispatcher (dispatch.go): this client's own actions — Dispatch,
//     the active-client assertion, the outbox that writes them in clientSeq
//     order, and the rollback of actions never echoed. No state lock of its
//     own: it puts actions on the mirror's pending lists under mirror.mu.
//   - negotiated (negotiated.go): the protocol version, its dialect and
//     the enablement shape learnt from the host's state.
//   - sessionList (sessions.go): the host's typed session summaries.
//   - joiner (join.go): which sessions and chats to follow. Its lock guards
//     joinState; it hears what the mirror saw through its inbox.
//
// The lock order is in the package comment (doc.go).
type Client struct {
	*connection
	*hostRequests
	*negotiated
	*mirror
	*dispatcher
	*joiner
	sessions *sessionList

	q        *eventQueue
	stop     chan struct{}
	stopOnce sync.Once
}

// deferred is work queued while a lock is held and run once every lock is
// released: network sends never happen under a lock.
type deferred []func()

func (d *deferred) add(f func()) { *d = append(*d, f) }

func (d deferred) run() {
	for _, f := range d {
		f()
	}
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
	setDefaults(&opts)
	log := opts.Logger.With("part", "ahpclient")
	c := &Client{q: newEventQueue(), stop: make(chan struct{}), sessions: &sessionList{byURI: map[string]wire.SessionSummary{}}}
	c.hostRequests = &hostRequests{
		opts: &opts, log: log, stop: c.stop,
		handlers: map[string]Handler{},
		inbound:  make(chan inboundRequest, opts.RequestQueue),
	}
	c.connection = &connection{
		opts: &opts, log: log, clientID: opts.ClientID, q: c.q, stop: c.stop,
		reqs: c.hostRequests,
		st:   connState{ready: make(chan struct{})},
	}
	c.negotiated = &negotiated{log: log, q: c.q}
	c.mirror = &mirror{
		log: log, clientID: opts.ClientID, now: reduce.Clock(opts.Now), q: c.q, n: c.negotiated,
		st: mirrorState{channels: map[string]*channelState{}},
	}
	c.dispatcher = &dispatcher{
		log: log, clientID: opts.ClientID, pendingTimeout: opts.PendingTimeout,
		conn: c.connection, n: c.negotiated, m: c.mirror,
	}
	c.joiner = &joiner{
		opts: &opts, log: log, clientID: opts.ClientID, q: c.q,
		st:   joinState{explicit: map[string]bool{}, joined: map[string]bool{}, failed: map[string]bool{}, rejoin: map[string]rejoinState{}},
		wake: make(chan struct{}, 1),
	}
	c.connection.m, c.connection.j, c.connection.sessions = c.mirror, c.joiner, c.sessions
	c.mirror.j = c.joiner
	c.joiner.m, c.joiner.d, c.joiner.c, c.joiner.sessions = c.mirror, c.dispatcher, c.connection, c.sessions
	for range opts.MaxConcurrentRequests {
		go c.hostRequests.worker()
	}
	for _, s := range opts.Sessions {
		c.joiner.st.explicit[s] = true
	}
	c.joiner.st.folders = append([]string(nil), opts.Folders...)
	go c.dispatcher.sweep(c.stop)
	go c.joiner.run(c.stop)
	return c, nil
}

// setDefaults fills the documented defaults of zero options.
func setDefaults(opts *Options) {
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
}

// ClientID is the id sent in initialize and reconnect.
func (c *Client) ClientID() string { return c.connection.clientID }

// OnEvent registers a listener; events arrive one at a time, in order, on a
// goroutine of their own (a listener may call back into the Client). The
// returned func removes the listener.
func (c *Client) OnEvent(f func(Event)) (remove func()) { return c.q.add(f) }

// Sessions returns the host's session summaries (listSessions kept current
// by root notifications), by session URI.
func (c *Client) Sessions() map[string]wire.SessionSummary { return c.sessions.all() }

// Close stops Run, closes the socket and the event queue.
func (c *Client) Close() error {
	c.stopOnce.Do(func() {
		close(c.stop)
		c.joiner.close()
		c.connection.close()
		c.q.close()
	})
	return nil
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
