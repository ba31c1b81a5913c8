package ahpclient

import (
	"fmt"
	"testing"
	"time"
)

// A listener busy with one event (the host link reducing a 5 MB
// customization list) does not hold up another listener (the tool
// executor starting a call and streaming its output): issue 28.
func TestSlowListenerDoesNotBlockAnother(t *testing.T) {
	q := newEventQueue()
	defer q.close()
	release := make(chan struct{})
	defer close(release)
	slowGot := make(chan struct{}, 1)
	q.add(func(Event) {
		select {
		case slowGot <- struct{}{}:
		default:
		}
		<-release
	})
	fast := make(chan string, 3)
	q.add(func(e Event) { fast <- e.Channel })
	for _, c := range []string{"a", "b", "c"} {
		q.push(Event{Channel: c})
	}
	<-slowGot
	for _, want := range []string{"a", "b", "c"} {
		select {
		case got := <-fast:
			if got != want {
				t.Fatalf("got %q, want %q (order per listener)", got, want)
			}
		case <-time.After(time.Minute): // a hang guard, not a timing assertion
			t.Fatalf("the second listener did not get %q while the first was busy", want)
		}
	}
}

// A removed listener gets nothing more; close ends every listener.
func TestRemovedListenerGetsNothing(t *testing.T) {
	q := newEventQueue()
	got := make(chan string, 4)
	remove := q.add(func(e Event) { got <- e.Channel })
	q.push(Event{Channel: "a"})
	if c := <-got; c != "a" {
		t.Fatalf("got %q", c)
	}
	remove()
	q.push(Event{Channel: "b"})
	q.close()
	q.wait()
	select {
	case c := <-got:
		t.Fatalf("a removed listener got %q", c)
	default:
	}
}

// blocked adds a listener that holds its first event until release is
// closed, and records what it gets.
func blocked(q *eventQueue) (got chan Event, started, release chan struct{}) {
	got = make(chan Event, 2*maxBacklog)
	started, release = make(chan struct{}), make(chan struct{})
	first := true
	q.add(func(e Event) {
		if first {
			first = false
			close(started)
			<-release
		}
		got <- e
	})
	return got, started, release
}

// A listener that falls behind holds at most one state per channel (plus
// the events between), whatever the number of state changes, and still
// gets every channel's newest state in the end (issue 28: the backlog of
// a lagging listener held every version of a 1,000-call chat).
func TestLaggingListenerBacklogIsBounded(t *testing.T) {
	q := newEventQueue()
	got, started, release := blocked(q)
	q.push(Event{Kind: EventConnected})
	<-started
	const n = 100000
	for i := 1; i <= n; i++ {
		ch := []string{"chat-a", "chat-b", "session"}[i%3]
		q.push(Event{Kind: EventStateChanged, Channel: ch, State: map[string]any{"v": i}})
	}
	s := onlySink(q)
	s.mu.Lock()
	items, live := len(s.items), s.live
	s.mu.Unlock()
	if live != 3 || items > 2*64+3 {
		t.Fatalf("backlog holds %d events (%d live) after %d state changes of 3 channels; want 3 live", items, live, n)
	}
	close(release)
	q.close()
	q.wait()
	close(got)
	newest := map[string]int{}
	count := 0
	for e := range got {
		count++
		if e.Kind == EventStateChanged {
			newest[e.Channel] = e.State["v"].(int)
		}
	}
	if want := map[string]int{"chat-a": n - 1, "chat-b": n, "session": n - 2}; !equalMaps(newest, want) || count != 4 {
		t.Fatalf("got %d events, newest states %v; want 4 events, %v", count, newest, want)
	}
}

// A state never moves past another kind of event: the listener sees the
// state before a disconnect, the disconnect, then the newest state after it.
func TestCoalescingKeepsOrderAroundOtherEvents(t *testing.T) {
	q := newEventQueue()
	got, started, release := blocked(q)
	q.push(Event{Kind: EventConnected})
	<-started
	for _, e := range []Event{
		{Kind: EventStateChanged, Channel: "c", Reason: "1"},
		{Kind: EventStateChanged, Channel: "c", Reason: "2"},
		{Kind: EventDisconnected},
		{Kind: EventStateChanged, Channel: "c", Reason: "3"},
		{Kind: EventStateChanged, Channel: "d", Reason: "4"},
		{Kind: EventStateChanged, Channel: "c", Reason: "5"},
	} {
		q.push(e)
	}
	close(release)
	q.close()
	q.wait()
	close(got)
	var seen []string
	for e := range got {
		seen = append(seen, e.Kind.String()+e.Reason)
	}
	want := []string{"connected", "stateChanged2", "disconnected", "stateChanged4", "stateChanged5"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", seen, want)
	}
}

// Notifications a host sends without end stop queuing for a listener at
// maxBacklog; the ones queued are delivered in order.
func TestNotificationFloodIsCapped(t *testing.T) {
	q := newEventQueue()
	got, started, release := blocked(q)
	q.push(Event{Kind: EventConnected})
	<-started
	for i := 0; i < maxBacklog+500; i++ {
		q.push(Event{Kind: EventNotification, Method: fmt.Sprint(i)})
	}
	q.push(Event{Kind: EventDisconnected}) // never dropped
	s := onlySink(q)
	s.mu.Lock()
	drops := s.drops
	s.mu.Unlock()
	close(release)
	q.close()
	q.wait()
	close(got)
	count, last := 0, Event{}
	for e := range got {
		count++
		last = e
	}
	if drops != 500 || count != 1+maxBacklog+1 || last.Kind != EventDisconnected {
		t.Fatalf("dropped %d, delivered %d, last %v; want 500 dropped, %d delivered ending with the disconnect", drops, count, last.Kind, maxBacklog+2)
	}
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func onlySink(q *eventQueue) *sink {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.sinks {
		return s
	}
	return nil
}
