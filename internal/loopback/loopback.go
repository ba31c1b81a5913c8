// Package loopback gives tests and the demo a connected pair of sockets on
// 127.0.0.1, in place of net.Pipe. An editor talks to ahpls over OS pipes,
// which buffer: each side can finish writing a message while the other is
// busy writing its own. net.Pipe has no buffer, so when both sides answer a
// request from their reading goroutine at the same moment, each waits for the
// other to read and neither does. A loopback socket buffers as a real pipe
// does.
package loopback

import (
	"errors"
	"net"
)

// Pair returns two connected ends, server and client. It fails only if no
// loopback socket can be opened.
func Pair() (server, client net.Conn, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := l.Accept()
		ch <- accepted{c, err}
	}()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	a := <-ch
	if a.err != nil {
		client.Close()
		return nil, nil, a.err
	}
	if a.c.RemoteAddr().String() != client.LocalAddr().String() {
		// Something else connected first: never talk to a stranger.
		a.c.Close()
		client.Close()
		return nil, nil, errors.New("loopback: an unexpected connection arrived first")
	}
	return a.c, client, nil
}
