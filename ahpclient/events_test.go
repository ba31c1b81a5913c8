package ahpclient

import (
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
