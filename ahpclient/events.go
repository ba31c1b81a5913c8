package ahpclient

import (
	"encoding/base64"
	"sync"
)

// eventQueue delivers events to listeners in order on one goroutine, so
// producers (the read loop, holding the mirror lock) never block on a
// listener and listeners may call back into the Client.
type eventQueue struct {
	mu        sync.Mutex
	items     []Event
	wake      chan struct{}
	closed    bool
	nextID    int
	listeners map[int]func(Event)
	order     []int
}

func newEventQueue() *eventQueue {
	return &eventQueue{wake: make(chan struct{}, 1), listeners: map[int]func(Event){}}
}

func (q *eventQueue) add(f func(Event)) func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.nextID++
	id := q.nextID
	q.listeners[id] = f
	q.order = append(q.order, id)
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		delete(q.listeners, id)
	}
}

func (q *eventQueue) push(e Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, e)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) run() {
	for range q.wake {
		for {
			q.mu.Lock()
			if len(q.items) == 0 {
				closed := q.closed
				q.mu.Unlock()
				if closed {
					return
				}
				break
			}
			e := q.items[0]
			q.items[0] = Event{}
			q.items = q.items[1:]
			var fs []func(Event)
			for _, id := range q.order {
				if f, ok := q.listeners[id]; ok {
					fs = append(fs, f)
				}
			}
			q.mu.Unlock()
			for _, f := range fs {
				f(e)
			}
		}
	}
}

func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
