package server

import "hash/maphash"

// textSum identifies a text the server checked: the rules memo is keyed by
// it, and an external set (a host's load failure) is merged only while the
// published text has the sum of the text it was computed from. It is
// hash/maphash under a seed made for this process, so no file can be
// crafted to collide. SHA-256 did the job before and was the single
// largest cost a first scan added to `ahpls check`'s (every file's whole
// text, #30); the host still tags its sets with SHA-256, which is checked
// once, where a set comes in (SetExternalFindingsFor).
type textSum uint64

var textSeed = maphash.MakeSeed()

func sumOf(text []byte) textSum { return textSum(maphash.Bytes(textSeed, text)) }
