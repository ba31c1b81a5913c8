// Package ahptest is an in-repo Agent Host Protocol host: a real WebSocket
// server on loopback that speaks AHP 0.8.0 (docs/ahp.md) well enough to drive
// ahpls end to end without a real agent host.
//
// Why the room exists: ahpls is an AHP *client*, and its interesting
// behaviour (handshake, reconnect with replay or snapshot, write-ahead
// reconciliation, client tool execution, reverse resource* requests) only
// shows against a host. This host is strict where a real one may be lenient:
// it validates every frame it receives and sends against the official schemas
// (package ahpschema) and reports each violation through Options.OnViolation,
// so tests fail on protocol mistakes on either side. `ahpls demo` runs it too,
// so it is production code: no testing.T anywhere in its API.
//
// Where to start: New and Options (host.go), Start. Then
//   - sessions and chats: CreateSession, CreateChat, DisposeSession, DisposeChat (state.go);
//   - scripted turns and client tool calls: StartTurn, StartClientToolCall,
//     CompleteTurn (script.go); observe with State, ToolCall and Wait;
//   - reverse requests to a connected client: Request, ResourceRead (host.go);
//   - fault injection: Drop, RefuseConnections, RefuseReconnect,
//     SetFrameDelay, ForceReplayGap, SwallowActions, SendRaw (faults.go);
//   - client actions are validated per docs/ahp.md §3 (validateLocked in
//     state.go) and echoed with serverSeq, or with a rejectionReason;
//   - client plugins (plugins.go, parse.go): a published virtual plugin is
//     read through reverse resource* requests and published with load
//     states and children (§4.4); observe with Reads, force with
//     SetLoadOverride and EmitLoadState;
//   - enablement (enablement.go): toggles go through an enablement.Overlay
//     and every publication through enablement.ResolveTree; SetDecision,
//     Overlay, DurableDecisions;
//   - per-connection dialect (dialect.go): version negotiation and the 0.8
//     or 1.x shapes each connection receives; ProtocolVersion.
//
// Host state is reduced with package ahpclient/reduce, so the host follows
// the official reducers exactly as the client's mirror does.
package ahptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpschema"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// RootURI is the connection-level channel.
const RootURI = "ahp-root://"

// Options configure a Host.
type Options struct {
	// OnViolation receives every schema or protocol violation seen on the
	// wire, in either direction. Tests turn it into a failure; nil logs.
	OnViolation func(error)
	Logger      *slog.Logger
	// ProtocolVersions the host implements. Per connection it picks the
	// highest offered version caret-compatible with one of them (same
	// major; for 0.x same minor), ignoring the client's order, and speaks
	// that connection's dialect (dialect.go). Default ["0.8.0"].
	ProtocolVersions []string
	// LoadClientPlugins: read and publish the plugins clients publish in
	// activeClientSet (plugins.go). nil = on; point at false to turn off.
	LoadClientPlugins *bool
	// OnPluginRead, if set, sees every reverse request the host sends to
	// read a client plugin (method and uri), from the loader goroutine
	// without the host lock held (`ahpls demo` prints them).
	OnPluginRead func(clientID, method, uri string)
	// EnablementStore is the file of the host's durable enablement
	// decisions ("" = in memory); Session decisions go to
	// <EnablementStore>.sessions/.
	EnablementStore string
	// GracePeriod before a disconnected client loses its active-client
	// entries and running tool calls. Default 30s.
	GracePeriod time.Duration
	// ReplayBuffer is how many envelopes are kept for reconnect replay.
	ReplayBuffer int
	// PageSize caps listSessions pages (default 100).
	PageSize int
	// ReadLimit bounds inbound frames (default 32 MiB).
	ReadLimit int64
	Now       func() time.Time
	// Addr to listen on; default "127.0.0.1:0".
	Addr string
	// InitializeMeta is InitializeResult._meta and RootMeta RootState._meta
	// (AHP 1.1: e.g. {"hostBuild": {...}} or a read-only role); nil = none.
	InitializeMeta map[string]any
	RootMeta       map[string]any
}

// RPCError is a JSON-RPC error sent or received by the host.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("ahp error %d: %s", e.Code, e.Message) }

// Host is the test host. All methods are safe for concurrent use.
type Host struct {
	opts Options
	log  *slog.Logger

	ln  net.Listener
	srv *http.Server
	url string

	mu        sync.Mutex
	serverSeq int64
	root      map[string]any
	channels  map[string]*hostChannel
	order     []string // session URIs in creation order (listSessions)
	created   map[string]time.Time
	replay    []envelopeRecord
	floor     int64 // replay holds every envelope with serverSeq > floor
	conns     map[*hconn]bool
	clients   map[string]*clientRecord
	nextConn  int
	accepted  int
	refuse    bool
	// refuseReconnect answers reconnect with an error (fault injection).
	refuseReconnect bool
	// reconnects records every accepted reconnect (Reconnects).
	reconnects []ReconnectRecord
	// forceSnapshot: channels whose next per-channel recovery is a snapshot;
	// unknownRecovery: channels whose next one is of an unknown kind.
	forceSnapshot   map[string]bool
	unknownRecovery map[string]bool
	// perChannelOnly refuses the connection-wide reconnect shape.
	perChannelOnly bool
	// progress: chat/toolCallProgress reports by toolCallId (bounded).
	progress  map[string][]ProgressReport
	reject    func(clientID, channel string, action map[string]any) string
	resources map[string]resource
	watchers  []*watcher
	closed    bool
	// serving counts connection goroutines (handler and writer); Close waits
	// for them so none holds the host, or a frame, once it returns.
	serving sync.WaitGroup
	x       pluginState // client plugins and enablement (plugins.go, enablement.go)

	// The parts by job (parts.go).
	SessionState
	ToolCalls
	PluginStore
	EnablementState
	Faults
	Recorder
}

type hostChannel struct {
	uri     string
	kind    reduce.Kind
	session string // for chats
	state   map[string]any
}

type envelopeRecord struct {
	seq     int64
	channel string
	params  map[string]any
}

type clientRecord struct {
	id       string
	conn     *hconn // nil while disconnected
	grace    *time.Timer
	sessions map[string]bool // sessions where it may hold an active-client entry
	version  string          // protocol version of its last initialize
}

type resource struct {
	data        string
	contentType string
}

type watcher struct {
	pred func() bool
	ch   chan struct{}
}

// New creates a Host; Start begins serving.
func New(opts Options) *Host {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	if len(opts.ProtocolVersions) == 0 {
		opts.ProtocolVersions = []string{"0.8.0"}
	}
	if opts.GracePeriod <= 0 {
		opts.GracePeriod = 30 * time.Second
	}
	if opts.ReplayBuffer <= 0 {
		opts.ReplayBuffer = 10000
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = 32 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	h := &Host{
		opts:      opts,
		log:       opts.Logger,
		root:      map[string]any{"agents": []any{map[string]any{"provider": "ahptest", "displayName": "AHP test host", "description": "Scripted in-repo agent host", "models": []any{}, "capabilities": map[string]any{"multipleChats": map[string]any{}, "multipleWorkingDirectories": map[string]any{}}}}},
		channels:  map[string]*hostChannel{},
		created:   map[string]time.Time{},
		conns:     map[*hconn]bool{},
		clients:   map[string]*clientRecord{},
		resources: map[string]resource{},
	}
	if opts.RootMeta != nil {
		h.root["_meta"] = opts.RootMeta
	}
	h.channels[RootURI] = &hostChannel{uri: RootURI, kind: reduce.Root, state: h.root}
	h.attachParts()
	h.initPlugins()
	return h
}

// Start listens (loopback by default) and serves WebSocket upgrades on every
// path. It returns the ws:// URL.
func (h *Host) Start() (string, error) {
	ln, err := net.Listen("tcp", h.opts.Addr)
	if err != nil {
		return "", err
	}
	h.ln = ln
	h.url = "ws://" + ln.Addr().String() + "/ahp"
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	return h.url, nil
}

// URL is the ws:// address after Start.
func (h *Host) URL() string { return h.url }

// Close stops serving, drops every connection and releases the host's state
// (channels, replay buffer, resources, client records, plugin caches): a
// closed host that is still referenced, as a test harness holds it, keeps
// nothing big alive. Reading a closed host reports no channels; it is safe
// to call Close more than once.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	conns := make([]*hconn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	for _, cr := range h.clients {
		if cr.grace != nil {
			cr.grace.Stop()
		}
	}
	h.mu.Unlock()
	h.x.cancel()
	for _, c := range conns {
		c.ws.CloseNow()
	}
	var err error
	if h.srv != nil {
		err = h.srv.Close()
	}
	h.closePlugins()
	h.serving.Wait()
	h.mu.Lock()
	h.releaseLocked()
	h.notifyWatchersLocked()
	h.mu.Unlock()
	return err
}

// releaseLocked drops everything a closed host accumulated, keeping the
// maps non-nil (and the root channel) so a method called after Close reads
// an empty host instead of panicking.
func (h *Host) releaseLocked() {
	h.channels = map[string]*hostChannel{RootURI: h.channels[RootURI]}
	h.order = nil
	h.created = map[string]time.Time{}
	h.replay = nil
	h.floor = h.serverSeq
	h.conns = map[*hconn]bool{}
	h.clients = map[string]*clientRecord{}
	h.reconnects = nil
	h.progress = nil
	h.resources = map[string]resource{}
	x := &h.x
	x.cache = map[loadKey]*loadResult{}
	x.inflight = map[loadKey][]loadWaiter{}
	x.shown = map[string]map[string]loadKey{}
	x.overrides = map[string]map[string]any{}
	x.mcpErrors = map[string]map[string]string{}
	x.launched = map[string]map[string]bool{}
	x.failed = map[string]map[string]bool{}
}

func (h *Host) violation(err error) {
	if h.opts.OnViolation != nil {
		h.opts.OnViolation(err)
		return
	}
	h.log.Error("ahptest: protocol violation", "err", err)
}

// ServeHTTP upgrades to WebSocket and runs one AHP connection.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	refuse := h.refuse
	h.mu.Unlock()
	if refuse {
		http.Error(w, "ahptest: refusing connections", http.StatusServiceUnavailable)
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(h.opts.ReadLimit)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		ws.CloseNow()
		return
	}
	h.nextConn++
	h.accepted++
	c := &hconn{h: h, ws: ws, n: h.nextConn, pairing: ahpschema.NewPairing(), subs: map[string]bool{}, calls: map[int64]chan response{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	h.conns[c] = true
	h.serving.Add(2)
	h.mu.Unlock()
	defer h.serving.Done()
	go func() {
		defer h.serving.Done()
		c.writer()
	}()
	c.readLoop(r.Context())
	h.disconnected(c)
}

// ---- connections ----

type hconn struct {
	h       *Host
	ws      *websocket.Conn
	n       int
	pairing *ahpschema.Pairing

	// guarded by h.mu
	clientID    string
	version     string  // negotiated protocol version
	dialect     dialect // what the host sends this connection (dialect.go)
	initialized bool
	subs        map[string]bool
	swallow     bool // drop this client's dispatchAction notifications
	echoExtras  bool // EchoClientExtras: own plugin entries keep extra keys
	dup         DuplicateMode
	dupHeld     map[string]any // the envelope whose copy goes out next
	nextID      int64
	calls       map[int64]chan response

	// resume is non-nil while StopReading holds the read loop.
	pauseMu sync.Mutex
	resume  chan struct{}

	qmu   sync.Mutex
	queue []outFrame
	delay time.Duration
	wake  chan struct{}
	done  chan struct{}
	once  sync.Once
}

type outFrame struct {
	data  []byte
	typ   websocket.MessageType
	close bool // close the socket once the frames before it are written
}

type response struct {
	result json.RawMessage
	err    *RPCError
}

// send validates a frame and queues it; callers hold h.mu, which keeps frames
// in the order the host state changed.
func (c *hconn) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.h.violation(fmt.Errorf("host encode: %w", err))
		return
	}
	b, check := c.shape(b)
	if err := c.pairing.Check(check, ahpschema.HostToClient); err != nil {
		c.h.violation(fmt.Errorf("host sent an invalid frame: %w\n%s", err, truncate(b)))
	}
	c.enqueue(outFrame{data: b, typ: websocket.MessageText})
}

func (c *hconn) enqueue(f outFrame) {
	c.qmu.Lock()
	c.queue = append(c.queue, f)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *hconn) writer() {
	for {
		select {
		case <-c.done:
			return
		case <-c.wake:
		}
		for {
			c.qmu.Lock()
			if len(c.queue) == 0 {
				c.qmu.Unlock()
				break
			}
			f := c.queue[0]
			c.queue = c.queue[1:]
			d := c.delay
			c.qmu.Unlock()
			if f.close {
				_ = c.ws.Close(websocket.StatusPolicyViolation, "unsupported protocol version")
				c.close()
				return
			}
			if d > 0 {
				select {
				case <-time.After(d):
				case <-c.done:
					return
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := c.ws.Write(ctx, f.typ, f.data)
			cancel()
			if err != nil {
				c.ws.CloseNow()
				return
			}
		}
	}
}

func (c *hconn) close() {
	c.once.Do(func() { close(c.done) })
	c.ws.CloseNow()
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func (c *hconn) readLoop(ctx context.Context) {
	defer c.close()
	for {
		c.pauseMu.Lock()
		gate := c.resume
		c.pauseMu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-c.done:
				return
			}
		}
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			c.h.violation(fmt.Errorf("client sent a binary frame"))
			continue
		}
		c.h.mu.Lock()
		check := c.inboundCheck(data)
		c.h.mu.Unlock()
		if err := c.pairing.Check(check, ahpschema.ClientToHost); err != nil {
			c.h.violation(fmt.Errorf("client sent an invalid frame: %w\n%s", err, truncate(data)))
		}
		f, err := ahpschema.ParseFrame(data)
		if err != nil {
			c.h.mu.Lock()
			c.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": err.Error()}})
			c.h.mu.Unlock()
			continue
		}
		c.h.handle(c, f)
	}
}

func (h *Host) disconnected(c *hconn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.notifyWatchersLocked()
	delete(h.conns, c)
	for id, ch := range c.calls {
		ch <- response{err: &RPCError{Code: -32603, Message: "connection lost"}}
		delete(c.calls, id)
	}
	cr := h.clients[c.clientID]
	if cr == nil || cr.conn != c {
		return
	}
	cr.conn = nil
	if h.closed {
		return // no grace timer: it would keep the host alive after Close
	}
	id := cr.id
	cr.grace = time.AfterFunc(h.opts.GracePeriod, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		defer h.notifyWatchersLocked()
		if cr := h.clients[id]; cr != nil && cr.conn == nil {
			for s := range cr.sessions {
				h.removeActiveClientLocked(s, id, "Client "+id+" disconnected")
			}
		}
	})
}

// ---- dispatch of inbound frames ----

func reply(c *hconn, id *int64, result any) {
	c.send(map[string]any{"jsonrpc": "2.0", "id": *id, "result": result})
}

func replyErr(c *hconn, id *int64, code int64, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": *id, "error": e})
}

func (h *Host) handle(c *hconn, f *ahpschema.Frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.notifyWatchersLocked()
	if f.IsResponse() {
		h.responseLocked(c, f)
		return
	}
	params := map[string]any{}
	if len(f.Params) > 0 {
		if v, err := reduce.Decode(f.Params); err == nil {
			if m, ok := v.(map[string]any); ok {
				params = m
			}
		}
	}
	if f.IsNotification() {
		h.notificationLocked(c, f.Method, params)
		return
	}
	h.requestLocked(c, f.Method, f.ID, params)
}

// responseLocked hands a client's answer to the Request waiting for it.
func (h *Host) responseLocked(c *hconn, f *ahpschema.Frame) {
	if f.ID == nil {
		return
	}
	ch, ok := c.calls[*f.ID]
	if !ok {
		return
	}
	delete(c.calls, *f.ID)
	var r response
	if f.Error != nil {
		r.err = &RPCError{Code: f.Error.Code, Message: f.Error.Message, Data: f.Error.Data}
	} else {
		r.result = f.Result
	}
	ch <- r
}

func (h *Host) notificationLocked(c *hconn, method string, params map[string]any) {
	if !c.initialized {
		h.violation(fmt.Errorf("notification %s before initialize", method))
		return
	}
	switch method {
	case wire.MethodDispatchAction:
		if !c.swallow {
			h.dispatchLocked(c, params)
		}
	case wire.MethodUnsubscribe:
		ch, _ := params["channel"].(string)
		delete(c.subs, ch)
		if hc := h.channels[ch]; hc != nil && hc.kind == reduce.Session {
			h.removeActiveClientLocked(ch, c.clientID, "Client "+c.clientID+" left the session")
		}
	}
}

// hostRequests is where the test host routes client requests.
var hostRequests = map[string]func(h *Host, c *hconn, id *int64, params map[string]any){
	wire.MethodPing:           func(_ *Host, c *hconn, id *int64, _ map[string]any) { reply(c, id, nil) },
	wire.MethodInitialize:     (*Host).initializeLocked,
	wire.MethodReconnect:      (*Host).reconnectRequestLocked,
	wire.MethodListSessions:   (*Host).listSessionsLocked,
	wire.MethodSubscribe:      (*Host).subscribeLocked,
	wire.MethodCreateSession:  (*Host).createSessionRequestLocked,
	wire.MethodCreateChat:     (*Host).createChatRequestLocked,
	wire.MethodDisposeSession: (*Host).disposeRequestLocked,
	wire.MethodDisposeChat:    (*Host).disposeRequestLocked,
	wire.MethodResourceRead:   (*Host).resourceReadLocked,
}

func (h *Host) requestLocked(c *hconn, method string, id *int64, params map[string]any) {
	if method != wire.MethodPing && method != wire.MethodInitialize && method != wire.MethodReconnect && !c.initialized {
		h.violation(fmt.Errorf("request %s before initialize", method))
		replyErr(c, id, -32600, "initialize first", nil)
		return
	}
	route, ok := hostRequests[method]
	if !ok {
		replyErr(c, id, -32601, method+" is not implemented by the test host", nil)
		return
	}
	route(h, c, id, params)
}

func (h *Host) reconnectRequestLocked(c *hconn, id *int64, params map[string]any) {
	if h.refuseReconnect {
		replyErr(c, id, -32602, "unknown client; initialize instead", nil)
		return
	}
	h.reconnectLocked(c, id, params)
}

func (h *Host) subscribeLocked(c *hconn, id *int64, params map[string]any) {
	ch, _ := params["channel"].(string)
	hc := h.channels[ch]
	if hc == nil {
		replyErr(c, id, -32001, "not found: "+ch, nil)
		return
	}
	c.subs[ch] = true
	reply(c, id, map[string]any{"snapshot": h.snapshotLocked(hc)})
}

func (part SessionState) createSessionRequestLocked(c *hconn, id *int64, params map[string]any) {
	h := part.h
	uri, _ := params["channel"].(string)
	if h.channels[uri] != nil {
		replyErr(c, id, -32003, "session exists: "+uri, nil)
		return
	}
	var dirs []string
	if l, ok := params["workingDirectories"].([]any); ok {
		for _, d := range l {
			if s, ok := d.(string); ok {
				dirs = append(dirs, s)
			}
		}
	}
	h.createSessionLocked(SessionSpec{URI: uri, WorkingDirectories: dirs})
	if ac, ok := params["activeClient"].(map[string]any); ok && ac["clientId"] == c.clientID {
		h.emitLocked(uri, map[string]any{"type": "session/activeClientSet", "activeClient": ac}, nil)
		h.clientLocked(c.clientID).sessions[uri] = true
		h.onActiveClientSetLocked(uri, c.clientID, ac)
	}
	reply(c, id, nil)
}

func (part SessionState) createChatRequestLocked(c *hconn, id *int64, params map[string]any) {
	h := part.h
	s, _ := params["channel"].(string)
	chat, _ := params["chat"].(string)
	if h.channels[s] == nil || h.channels[s].kind != reduce.Session {
		replyErr(c, id, -32001, "session not found: "+s, nil)
		return
	}
	if h.channels[chat] != nil {
		replyErr(c, id, -32010, "chat exists: "+chat, nil)
		return
	}
	h.createChatLocked(s, chat, "Chat")
	reply(c, id, nil)
}

func (part SessionState) disposeRequestLocked(c *hconn, id *int64, params map[string]any) {
	h := part.h
	uri, _ := params["channel"].(string)
	if h.channels[uri] == nil {
		replyErr(c, id, -32001, "not found: "+uri, nil)
		return
	}
	h.disposeLocked(uri)
	reply(c, id, nil)
}

func (h *Host) resourceReadLocked(c *hconn, id *int64, params map[string]any) {
	uri, _ := params["uri"].(string)
	r, ok := h.resources[uri]
	if !ok {
		replyErr(c, id, -32008, "not found: "+uri, nil)
		return
	}
	res := map[string]any{"data": r.data, "encoding": "utf-8"}
	if r.contentType != "" {
		res["contentType"] = r.contentType
	}
	reply(c, id, res)
}

func (h *Host) clientLocked(id string) *clientRecord {
	cr := h.clients[id]
	if cr == nil {
		cr = &clientRecord{id: id, sessions: map[string]bool{}}
		h.clients[id] = cr
	}
	return cr
}

// attachLocked binds a connection to its clientId, cancelling a pending
// grace-period removal.
func (h *Host) attachLocked(c *hconn, id string) {
	c.clientID = id
	c.initialized = true
	cr := h.clientLocked(id)
	if cr.grace != nil {
		cr.grace.Stop()
		cr.grace = nil
	}
	if old := cr.conn; old != nil && old != c {
		old.close() // a clientId is one running instance
	}
	cr.conn = c
}

func (h *Host) initializeLocked(c *hconn, id *int64, p map[string]any) {
	offered, _ := p["protocolVersions"].([]any)
	chosen, ok := h.negotiate(offered)
	if !ok {
		replyErr(c, id, -32005, "Unsupported protocol version", map[string]any{"supportedVersions": h.opts.ProtocolVersions})
		c.enqueue(outFrame{close: true}) // close after the refusal is written (§2.1)
		return
	}
	cid, _ := p["clientId"].(string)
	c.version, c.dialect = chosen, dialectOf(chosen)
	h.attachLocked(c, cid)
	h.clients[cid].version = chosen
	snaps := []any{}
	if l, ok := p["initialSubscriptions"].([]any); ok {
		for _, u := range l {
			s, _ := u.(string)
			if hc := h.channels[s]; hc != nil {
				c.subs[s] = true
				snaps = append(snaps, h.snapshotLocked(hc))
			}
		}
	}
	res := map[string]any{
		"protocolVersion": chosen,
		"serverSeq":       h.serverSeq,
		"snapshots":       snaps,
		"serverInfo":      map[string]any{"name": "ahptest", "version": "0.1.0"},
	}
	if h.opts.InitializeMeta != nil {
		res["_meta"] = h.opts.InitializeMeta
	}
	reply(c, id, res)
}

// reconnectCursors reads reconnect params in either shape: per-channel
// cursors (subscriptions are {channel, lastSeenServerSeq}) or the
// connection-wide lastSeenServerSeq applied to every URI. perChannel says
// which; ok is false for params in neither shape.
func reconnectCursors(p map[string]any) (subs []string, cursor map[string]int64, last int64, perChannel, ok bool) {
	cursor = map[string]int64{}
	list, _ := p["subscriptions"].([]any)
	legacyLast, hasLast := p["lastSeenServerSeq"].(json.Number)
	for _, u := range list {
		switch v := u.(type) {
		case string:
			if perChannel {
				return nil, nil, 0, false, false
			}
			subs = append(subs, v)
		case map[string]any:
			ch, _ := v["channel"].(string)
			n, isNum := v["lastSeenServerSeq"].(json.Number)
			if ch == "" || !isNum || (len(subs) > 0 && !perChannel) {
				return nil, nil, 0, false, false
			}
			perChannel = true
			seq, _ := n.Int64()
			subs = append(subs, ch)
			cursor[ch] = seq
		default:
			return nil, nil, 0, false, false
		}
	}
	if !perChannel {
		if !hasLast && len(list) > 0 {
			return nil, nil, 0, false, false
		}
		last = -1
		if hasLast {
			last, _ = legacyLast.Int64()
		}
		for _, s := range subs {
			cursor[s] = last
		}
		perChannel = !hasLast // {subscriptions: []} without a seq: per-channel
	}
	return subs, cursor, last, perChannel, true
}

// speaksPerChannelReconnect: the host answers the per-channel reconnect
// when it implements 1.1 or later; a 1.0 host refuses those params.
func (h *Host) speaksPerChannelReconnect() bool {
	for _, v := range h.opts.ProtocolVersions {
		if wire.SpeaksPerChannelReconnect(strings.TrimPrefix(v, "^")) {
			return true
		}
	}
	return false
}

func (h *Host) reconnectLocked(c *hconn, id *int64, p map[string]any) {
	cid, _ := p["clientId"].(string)
	subs, cursor, last, perChannel, ok := reconnectCursors(p)
	if !ok || (perChannel && !h.speaksPerChannelReconnect()) || (!perChannel && h.perChannelOnly) {
		replyErr(c, id, -32602, "reconnect params are not in a shape this host speaks", nil)
		return
	}
	h.attachLocked(c, cid)
	cr := h.clients[cid]
	// A reconnect resumes the dialect negotiated by the client's initialize.
	c.version = cr.version
	if c.version == "" && len(h.opts.ProtocolVersions) > 0 {
		c.version = h.opts.ProtocolVersions[0]
	}
	c.dialect = dialectOf(c.version)
	// §4.8: reconnecting without a session ends the active-client role there.
	want := map[string]bool{}
	for _, s := range subs {
		want[s] = true
	}
	for s := range cr.sessions {
		if !want[s] {
			h.removeActiveClientLocked(s, cid, "Client "+cid+" reconnected without the session")
		}
	}
	missing := []any{}
	for _, s := range subs {
		if h.channels[s] == nil {
			missing = append(missing, s)
			continue
		}
		c.subs[s] = true
	}
	defer h.retryFailedLoadsLocked(cid)
	h.reconnects = append(h.reconnects, ReconnectRecord{ClientID: cid, PerChannel: perChannel, Cursors: cursor})
	if perChannel {
		reply(c, id, map[string]any{"channels": h.recoveriesLocked(subs, cursor)})
		return
	}
	if last >= h.floor && last <= h.serverSeq {
		actions := []any{}
		for _, r := range h.replay {
			if r.seq > last && c.subs[r.channel] {
				actions = append(actions, r.params)
			}
		}
		reply(c, id, map[string]any{"type": "replay", "actions": actions, "missing": missing})
		return
	}
	snaps := []any{}
	for _, s := range subs {
		if hc := h.channels[s]; hc != nil {
			snaps = append(snaps, h.snapshotLocked(hc))
		}
	}
	reply(c, id, map[string]any{"type": "snapshot", "snapshots": snaps})
}

// recoveriesLocked is the per-channel reconnect answer: one recovery per
// requested channel, from that channel's own cursor. missing: the channel
// is gone; snapshot: its cursor is below the replay buffer (or a snapshot
// was forced for it, ForceSnapshot); replay: its actions after the cursor.
func (h *Host) recoveriesLocked(subs []string, cursor map[string]int64) []any {
	out := make([]any, 0, len(subs))
	for _, s := range subs {
		hc := h.channels[s]
		last := cursor[s]
		switch {
		case hc == nil:
			out = append(out, map[string]any{"kind": "missing", "channel": s})
		case h.unknownRecovery[s]:
			delete(h.unknownRecovery, s)
			out = append(out, map[string]any{"kind": "x-ahptest/later", "channel": s})
		case h.forceSnapshot[s] || last < h.floor || last > h.serverSeq:
			delete(h.forceSnapshot, s)
			out = append(out, map[string]any{"kind": "snapshot", "channel": s, "snapshot": h.snapshotLocked(hc)})
		default:
			actions := []any{}
			for _, r := range h.replay {
				if r.seq > last && r.channel == s {
					actions = append(actions, r.params)
				}
			}
			out = append(out, map[string]any{"kind": "replay", "channel": s, "actions": actions})
		}
	}
	return out
}

func (part SessionState) listSessionsLocked(c *hconn, id *int64, p map[string]any) {
	h := part.h
	limit := h.opts.PageSize
	if n, ok := p["limit"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v > 0 && int(v) < limit {
			limit = int(v)
		}
	}
	start := 0
	if cur, ok := p["cursor"].(string); ok {
		v, err := strconv.Atoi(strings.TrimPrefix(cur, "p"))
		if err != nil || !strings.HasPrefix(cur, "p") || v < 0 || v > len(h.order) {
			replyErr(c, id, -32602, "unknown cursor", nil)
			return
		}
		start = v
	}
	items := []any{}
	end := start + limit
	if end > len(h.order) {
		end = len(h.order)
	}
	for _, s := range h.order[start:end] {
		items = append(items, h.summaryLocked(s))
	}
	res := map[string]any{"items": items}
	if end < len(h.order) {
		res["nextCursor"] = "p" + strconv.Itoa(end)
	}
	reply(c, id, res)
}

func (h *Host) snapshotLocked(hc *hostChannel) map[string]any {
	return map[string]any{"resource": hc.uri, "state": hc.state, "fromSeq": h.serverSeq}
}

// ---- emitting actions ----

// emitLocked applies an action to host state, records it for replay and
// sends the envelope to every subscriber of the channel.
func (h *Host) emitLocked(channel string, action map[string]any, origin map[string]any) int64 {
	hc := h.channels[channel]
	var before map[string]any
	if hc != nil {
		before = hc.state
		hc.state = reduce.Apply(hc.kind, hc.state, action, reduce.Clock(h.opts.Now))
		if hc.kind == reduce.Root {
			h.root = hc.state
		}
		h.afterEmitLocked(hc, before)
	}
	h.serverSeq++
	env := map[string]any{"channel": channel, "serverSeq": h.serverSeq, "action": action}
	if origin != nil {
		env["origin"] = origin
	}
	seq := h.serverSeq
	h.recordLocked(channel, env)
	h.broadcastLocked(channel, env)
	if hc != nil && hc.kind == reduce.Session {
		h.summaryChangedLocked(channel, before, hc.state)
	}
	h.notifyWatchersLocked()
	return seq
}

// summaryChangedLocked tells root subscribers about summary fields a session
// action changed (root/sessionSummaryChanged carries only the changes).
func (h *Host) summaryChangedLocked(uri string, before, after map[string]any) {
	changes := map[string]any{}
	for _, k := range []string{"title", "status", "workingDirectories", "activity"} {
		b, _ := json.Marshal(before[k])
		a, _ := json.Marshal(after[k])
		if string(a) != string(b) {
			if v, ok := after[k]; ok {
				changes[k] = v
			} else if k == "workingDirectories" {
				changes[k] = []any{}
			}
		}
	}
	if len(changes) == 0 {
		return
	}
	changes["modifiedAt"] = h.isoNow()
	h.rootNotifyLocked(wire.MethodSessionSummaryChanged, map[string]any{"session": uri, "changes": changes})
}

func (h *Host) recordLocked(channel string, env map[string]any) {
	h.replay = append(h.replay, envelopeRecord{seq: h.serverSeq, channel: channel, params: env})
	if over := len(h.replay) - h.opts.ReplayBuffer; over > 0 {
		h.floor = h.replay[over-1].seq
		h.replay = append([]envelopeRecord(nil), h.replay[over:]...)
	}
}

func (h *Host) broadcastLocked(channel string, env map[string]any) {
	for c := range h.conns {
		if c.initialized && c.subs[channel] {
			c.send(map[string]any{"jsonrpc": "2.0", "method": wire.MethodAction, "params": env})
			h.resendLocked(c, env)
		}
	}
}

// resendLocked is fault mode DuplicateEnvelopes: the copy of each
// envelope goes out right after the next one sent to that connection, so a
// re-sent start arrives once the call has moved on.
func (h *Host) resendLocked(c *hconn, env map[string]any) {
	if c.dup == NoDuplicates {
		return
	}
	held := c.dupHeld
	c.dupHeld = env
	if held == nil {
		return
	}
	if c.dup == DuplicateNewSeq {
		h.serverSeq++
		held = maps.Clone(held)
		held["serverSeq"] = h.serverSeq
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": wire.MethodAction, "params": held})
}

func (h *Host) rootNotifyLocked(method string, params map[string]any) {
	params["channel"] = RootURI
	for c := range h.conns {
		if c.initialized && c.subs[RootURI] {
			c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
		}
	}
}

// NotifyRoot sends a host→client notification on the root channel to every
// initialized client subscribed to it (method: a wire.Method… constant), so
// a test of a new host notification needs no change here.
func (h *Host) NotifyRoot(method string, params map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	h.rootNotifyLocked(method, p)
}

// SetRejectPolicy installs a policy consulted for every client action that
// passes the §3 checks; a non-empty reason rejects it.
func (h *Host) SetRejectPolicy(f func(clientID, channel string, action map[string]any) string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reject = f
}

// Emit applies and broadcasts a host action on a channel (tests and demo
// scripts); it returns the envelope's serverSeq.
func (h *Host) Emit(channel string, action any) (int64, error) {
	m, err := toObject(action)
	if err != nil {
		return 0, err
	}
	b, _ := json.Marshal(m)
	if err := ahpschema.Validate("commands", "StateAction", b); err != nil {
		return 0, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.channels[channel] == nil {
		return 0, fmt.Errorf("ahptest: no channel %s", channel)
	}
	return h.emitLocked(channel, m, nil), nil
}

// ---- reverse requests ----

// Request sends a host→client request (resourceResolve, resourceList,
// resourceRead, …) to the connected client with that clientId and returns
// its result; a client error comes back as *RPCError.
func (h *Host) Request(ctx context.Context, clientID, method string, params map[string]any) (json.RawMessage, error) {
	h.mu.Lock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		h.mu.Unlock()
		return nil, fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	c := cr.conn
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.calls[id] = ch
	p := map[string]any{"channel": RootURI}
	for k, v := range params {
		p[k] = v
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	h.mu.Unlock()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		h.mu.Lock()
		delete(c.calls, id)
		h.mu.Unlock()
		return nil, ctx.Err()
	}
}

// ResourceRead asks a client for a resource and decodes the data.
func (h *Host) ResourceRead(ctx context.Context, clientID, uri string) (string, error) {
	res, err := h.Request(ctx, clientID, wire.MethodResourceRead, map[string]any{"uri": uri})
	if err != nil {
		return "", err
	}
	var r struct {
		Data     string `json:"data"`
		Encoding string `json:"encoding"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", err
	}
	if r.Encoding == "base64" {
		b, err := decodeBase64(r.Data)
		return string(b), err
	}
	return r.Data, nil
}

// SetResource serves a host resource to client resourceRead requests (e.g.
// a referenced tool input, ahp-session:/<id>/tool-inputs/<call>).
func (h *Host) SetResource(uri, data, contentType string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resources[uri] = resource{data, contentType}
}

// Clients lists connected clientIds, sorted.
func (part Recorder) Clients() []string {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id, cr := range h.clients {
		if cr.conn != nil {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Subscriptions lists the channels a connected client is subscribed to.
func (part Recorder) Subscriptions(clientID string) []string {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	if cr := h.clients[clientID]; cr != nil && cr.conn != nil {
		for s := range cr.conn.subs {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Accepted counts WebSocket connections accepted so far.
func (part Recorder) Accepted() int {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.accepted
}

// ServerSeq is the last serverSeq the host assigned.
func (part Recorder) ServerSeq() int64 {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serverSeq
}

var errNotObject = errors.New("ahptest: value is not a JSON object")

func toObject(v any) (map[string]any, error) {
	var raw []byte
	// Always through JSON, so numbers are json.Number as the reducers expect.
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	d, err := reduce.Decode(raw)
	if err != nil {
		return nil, err
	}
	m, ok := d.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return m, nil
}
