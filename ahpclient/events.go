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
type eventQueue struct {
	mu     sync.Mutex // guards closed, nextID and sinks; a leaf
	closed bool
	nextID int
	sinks  map[int]*sink
	wg     sync.WaitGroup // one per sink goroutine
}

// sink is one listener's queue.
type sink struct {
	f     func(Event)
	wake  chan struct{}
	mu    sync.Mutex // a leaf: guards items, gone
	items []Event
	gone  bool // removed or closed: deliver nothing more and end
	ended bool // closed: end once the items are delivered
}

func newEventQueue() *eventQueue {
	return &eventQueue{sinks: map[int]*sink{}}
}

func (q *eventQueue) add(f func(Event)) func() {
	s := &sink{f: f, wake: make(chan struct{}, 1)}
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
		s.items = nil
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
		s.mu.Lock()
		s.items = append(s.items, e)
		s.mu.Unlock()
		s.poke()
	}
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
			s.mu.Lock()
			if s.gone || len(s.items) == 0 {
				end := s.gone || s.ended
				s.mu.Unlock()
				if end {
					return
				}
				break
			}
			e := s.items[0]
			s.items[0] = Event{}
			s.items = s.items[1:]
			s.mu.Unlock()
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
