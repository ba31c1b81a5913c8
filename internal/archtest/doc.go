// Package archtest holds no product code. Its test keeps
// docs/architecture.md true: every package of the module appears in the
// code map, and the import invariants the map states hold.
package archtest
