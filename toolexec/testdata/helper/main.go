// Command ahplsexec is the fixture program of the toolexec tests: small
// behaviours (print argv, flood output, hang with a child, wait for a file)
// that command tools run as real subprocesses.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "argv": // every argument after the mode, Go-quoted, one per line
		w := bufio.NewWriter(os.Stdout)
		for _, a := range args[1:] {
			fmt.Fprintln(w, strconv.Quote(a))
		}
		w.Flush()
	case "spew": // spew N: N bytes of 100-byte lines
		n, _ := strconv.ParseInt(args[1], 10, 64)
		chunk := []byte(strings.Repeat(strings.Repeat("x", 99)+"\n", 655))
		for n > 0 {
			k := int(min(n, int64(len(chunk))))
			if _, err := os.Stdout.Write(chunk[:k]); err != nil {
				return 1
			}
			n -= int64(k)
		}
	case "drip": // drip N: N lines, 5ms apart, each written on its own
		n, _ := strconv.Atoi(args[1])
		for i := range n {
			fmt.Printf("drip %d\n", i)
			time.Sleep(5 * time.Millisecond)
		}
	case "hang": // a process group that never ends by itself
		self, _ := os.Executable()
		c := &exec.Cmd{Path: self, Args: []string{"ahplsexec", "sleep"}, Stdout: os.Stdout}
		if err := c.Start(); err != nil {
			return 1
		}
		fmt.Printf("pid %d pgid %d child %d\nready\n", os.Getpid(), syscall.Getpgrp(), c.Process.Pid)
		time.Sleep(time.Hour)
	case "sleep":
		time.Sleep(time.Hour)
	case "gate": // gate PATH: wait until PATH exists
		fmt.Println("waiting")
		for {
			if _, err := os.Stat(args[1]); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		fmt.Println("released")
	default:
		return 2
	}
	return 0
}
