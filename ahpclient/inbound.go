package ahpclient

// The connection's inbound side: host→client requests under the request
// budget (hostRequests: a bounded queue, a fixed set of workers, busy beyond
// them) and the routing of host notifications: action envelopes go to the
// mirror (mirror.go), session notifications to the session list and the
// joiner.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// hostRequests answers host→client requests: the handlers registered with
// Handle, run by a fixed set of workers from a bounded queue, CodeBusy
// beyond it. It is independent of which socket is current: a request
// carries the rpcConn to answer on.
type hostRequests struct {
	opts *Options
	log  *slog.Logger
	stop chan struct{}

	handlersMu sync.RWMutex       // a leaf
	handlers   map[string]Handler // guarded by handlersMu

	// inbound queues host→client requests for the workers (onRequest);
	// queuedBytes is the size of the params waiting in it. Both are safe
	// without a lock.
	inbound     chan inboundRequest
	queuedBytes atomic.Int64
}

// Handle registers the handler for a host→client request method (the
// reverse resource* family, createResourceWatch). Unregistered methods are
// answered -32601.
func (c *hostRequests) Handle(method string, h Handler) {
	c.handlersMu.Lock()
	defer c.handlersMu.Unlock()
	if h == nil {
		delete(c.handlers, method)
		return
	}
	c.handlers[method] = h
}

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
func (c *connection) Budget() BudgetStats {
	st := BudgetStats{QueuedRequests: len(c.reqs.inbound), QueuedBytes: c.reqs.queuedBytes.Load()}
	if conn := c.live(); conn != nil {
		st.WriteBytes, st.WriteBytesPeak = conn.budget.inUse(), conn.budget.highWater()
	}
	return st
}

// CodeBusy answers a host→client request beyond the request budget.
const CodeBusy = -32000

// onRequest runs on the read loop: it queues the request for a worker or,
// when the queue is full, answers CodeBusy at once. Nothing here waits for
// a handler, so a flood costs at most the queue.
func (c *hostRequests) onRequest(conn *rpcConn, id json.RawMessage, method string, params json.RawMessage) {
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
func (c *hostRequests) worker() {
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

func (c *hostRequests) serve(r inboundRequest) {
	conn := r.conn
	select {
	case <-conn.done:
		return // the connection went while it waited; nobody to answer
	default:
	}
	// The handler's context is the connection's: it ends when the
	// connection does (there is nobody left to answer).
	res, err := safeCall(conn.ctx, r.h, r.params)
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

// notifyRoutes is the one place host notifications are routed: a method
// that feeds client state maps to its handler; every other method reaches
// listeners unchanged as an EventNotification, where the host link reacts
// to it by its wire.Method constant. A new host notification is a line here
// only if it changes client state.
var notifyRoutes = map[string]func(c *connection, conn *rpcConn, method string, params json.RawMessage){
	wire.MethodAction:                func(c *connection, conn *rpcConn, _ string, p json.RawMessage) { c.m.onAction(conn, p) },
	wire.MethodSessionAdded:          (*connection).onSessionNotification,
	wire.MethodSessionRemoved:        (*connection).onSessionNotification,
	wire.MethodSessionSummaryChanged: (*connection).onSessionNotification,
}

func (c *connection) onNotify(conn *rpcConn, method string, params json.RawMessage) {
	if route, ok := notifyRoutes[method]; ok {
		route(c, conn, method, params)
		return
	}
	c.q.push(Event{Kind: EventNotification, Method: method, Params: params})
}

// onSessionNotification updates the session list, then lets the joiner
// react (a removed session it follows is dropped; joins are re-decided).
func (c *connection) onSessionNotification(_ *rpcConn, method string, params json.RawMessage) {
	uri, err := c.sessions.apply(method, params)
	if err != nil {
		c.log.Debug("ahp: session notification not understood", "method", method, "err", err)
	}
	c.j.sessionNotified(method, uri)
	c.q.push(Event{Kind: EventNotification, Method: method, Params: params})
}
