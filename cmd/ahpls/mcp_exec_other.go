//go:build !unix

package main

// execMCP cannot replace the process here; runMCP runs ahpls-mcp as a
// child with the same streams instead.
func execMCP(string, []string) {}
