package server

// Where the cursor is in a JSON file, found by a tolerant forward scan of
// the text before it, so a half-typed file still answers: the containers
// it sits in, the member each is the value of, and whether it stands where
// a member name goes, inside its quotes or not. Completion asks this
// rather than the line's text: inside the quotes of a new key the line
// ends in an open string, which fooled a backward scan.

// jsonFrame is one open container on the way to the cursor.
type jsonFrame struct {
	object bool
	// key is the member name this container is the value of ("" for the
	// top and for an array's elements).
	key string
	// lastKey is, in an object, the last member name seen.
	lastKey string
	state   memberState
}

// memberState is where an object's scan stands in its current member.
type memberState uint8

const (
	wantKey   memberState = iota // after '{' or ','
	afterKey                     // a name, no ':' yet
	wantValue                    // after ':'
	afterValue
)

// jsonPos is the cursor's position.
type jsonPos struct {
	path []jsonFrame
	// inString: the cursor is inside a string literal that opens at
	// stringStart.
	inString    bool
	stringStart int
	// isKey: the cursor stands where a member name goes (a value just
	// ended without a comma counts: the comma is often typed later).
	isKey bool
}

// top is the innermost container, ok false outside every one.
func (p jsonPos) top() (jsonFrame, bool) {
	if len(p.path) == 0 {
		return jsonFrame{}, false
	}
	return p.path[len(p.path)-1], true
}

// parent is the container n levels above the innermost (1: its parent).
func (p jsonPos) parent(n int) (jsonFrame, bool) {
	if len(p.path) <= n {
		return jsonFrame{}, false
	}
	return p.path[len(p.path)-1-n], true
}

func jsonPosAt(text []byte, off int) jsonPos {
	off = min(max(off, 0), len(text))
	var p jsonPos
	valueDone := func() {
		if n := len(p.path); n > 0 && p.path[n-1].object && p.path[n-1].state == wantValue {
			p.path[n-1].state = afterValue
		}
	}
	for i := 0; i < off; i++ {
		switch c := text[i]; c {
		case '"':
			j := i + 1
			for j < off && text[j] != '"' && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= off || text[j] != '"' {
				p.inString, p.stringStart = true, i
				if top, ok := p.top(); ok && top.object {
					p.isKey = top.state != wantValue
				}
				return p
			}
			if n := len(p.path); n > 0 && p.path[n-1].object && p.path[n-1].state != wantValue {
				p.path[n-1].lastKey = string(text[i+1 : j])
				p.path[n-1].state = afterKey
			} else {
				valueDone()
			}
			i = j
		case ':':
			if n := len(p.path); n > 0 && p.path[n-1].object {
				p.path[n-1].state = wantValue
			}
		case ',':
			if n := len(p.path); n > 0 && p.path[n-1].object {
				p.path[n-1].state = wantKey
			}
		case '{', '[':
			key := ""
			if top, ok := p.top(); ok && top.object {
				key = top.lastKey
			}
			valueDone()
			p.path = append(p.path, jsonFrame{object: c == '{', key: key})
		case '}', ']':
			if len(p.path) > 0 {
				p.path = p.path[:len(p.path)-1]
			}
		case ' ', '\t', '\r', '\n':
		default:
			valueDone() // a number or a literal
		}
	}
	if top, ok := p.top(); ok && top.object {
		p.isKey = top.state != wantValue
	}
	return p
}
