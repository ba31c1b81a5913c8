package ahpclient

import (
	"encoding/base64"
	"sync"
)

// eventQueue delivers events to each listener in order, on that
// listener's own goroutine, so producers (the read loop, holding the
// mirror lock) never block on a listener, listeners may call back into the
// Client, and a slow listener (the host link reducing a 5 MB customization
// list) does not hold up another (the tool executor starting a call and
// streaming its output; issue 28).
//
// Each listener's backlog is bounded, whatever the host sends:
//   - State changes coalesce: a queued EventStateChanged of a channel is
//     replaced by a newer one of the same channel, unless another kind of
//     event was queued between them (those keep their place: a state is
//     never moved past a disconnect, a rejection or a dropped channel). A
//     listener that falls behind sees each channel's newest state and
//     skips versions superseded before it got to them — their Action
//     with them. A burst of n tool-call actions left a lagging listener
//     n versions of an n-call chat (issue 28: +321 MB for 1,000 calls).
//   - Once a backlog holds maxBacklog events, further notifications and
//     bad-frame reports (which a host can send without end) are dropped
//     for that listener and counted. Other events always queue: they come
//     from our own actions (rejected, timed out), channel changes and
//     connection changes, which coalesced state changes bound in practice.
type eventQueue struct {
	mu     sync.Mutex // guards closed, nextID and sinks; a leaf
	closed bool
	nextID int
	sinks  map[int]*sink
	wg     sync.WaitGroup // one per sink goroutine
}

// maxBacklog bounds a listener's queue for droppable events.
const maxBacklog = 4096

// queued is one event in a sink; dead once a newer state replaced it.
type queued struct {
	e    Event
	dead bool
}

// sink is one listener's queue.
type sink struct {
	f     func(Event)
	wake  chan struct{}
	mu    sync.Mutex // a leaf: guards the fields below
	items []*queued
	live  int                // items not dead
	last  map[string]*queued // per channel, its queued state change since the last other event
	drops int                // droppable events refused at maxBacklog
	gone  bool               // removed or closed: deliver nothing more and end
	ended bool               // closed: end once the items are delivered
}

func newEventQueue() *eventQueue {
	return &eventQueue{sinks: map[int]*sink{}}
}

func (q *eventQueue) add(f func(Event)) func() {
	s := &sink{f: f, wake: make(chan struct{}, 1), last: map[string]*queued{}}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return func() {}
	}
	q.nextID++
	id := q.nextID
	q.sinks[id] = s
	q.wg.Add(1)
	q.mu.Unlock()
	go func() {
		defer q.wg.Done()
		s.run()
	}()
	return func() {
		q.mu.Lock()
		delete(q.sinks, id)
		q.mu.Unlock()
		s.mu.Lock()
		s.gone = true
		s.items, s.live = nil, 0
		clear(s.last)
		s.mu.Unlock()
		s.poke()
	}
}

func (q *eventQueue) push(e Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	for _, s := range q.sinks {
		s.add(e)
		s.poke()
	}
}

// add queues e under the backlog policy (eventQueue).
func (s *sink) add(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return
	}
	if e.Kind != EventStateChanged {
		if (e.Kind == EventNotification || e.Kind == EventBadFrame) && s.live >= maxBacklog {
			s.drops++
			return
		}
		clear(s.last) // later states must not move past this event
		s.items = append(s.items, &queued{e: e})
		s.live++
		return
	}
	if old := s.last[e.Channel]; old != nil {
		old.dead, old.e = true, Event{}
		s.live--
	}
	n := &queued{e: e}
	s.last[e.Channel] = n
	s.items = append(s.items, n)
	s.live++
	if dead := len(s.items) - s.live; dead > 64 && dead > s.live {
		kept := s.items[:0]
		for _, it := range s.items {
			if !it.dead {
				kept = append(kept, it)
			}
		}
		clear(s.items[len(kept):])
		s.items = kept
	}
}

// next takes the oldest live event; ok is false when there is none now,
// end when the sink is over.
func (s *sink) next() (e Event, ok, end bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.gone && len(s.items) > 0 {
		it := s.items[0]
		s.items[0] = nil
		s.items = s.items[1:]
		if it.dead {
			continue
		}
		s.live--
		if s.last[it.e.Channel] == it {
			delete(s.last, it.e.Channel)
		}
		return it.e, true, false
	}
	return Event{}, false, s.gone || s.ended
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	sinks := q.sinks
	q.sinks = map[int]*sink{}
	q.mu.Unlock()
	for _, s := range sinks {
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		s.poke()
	}
}

// wait returns once every listener's goroutine has ended (after close).
func (q *eventQueue) wait() { q.wg.Wait() }

func (s *sink) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sink) run() {
	for range s.wake {
		for {
			e, ok, end := s.next()
			if end {
				return
			}
			if !ok {
				break
			}
			s.f(e)
		}
	}
}

func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
