package tools

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// ParseInput decodes a call's toolInput text (ahp.md §5.4): absent or blank
// means {}, anything else must be one JSON object (duplicate keys and
// invalid UTF-8 are refused). Numbers stay json.Number so that "10" is
// passed on as written.
func ParseInput(toolInput []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(toolInput)) == 0 {
		return map[string]any{}, nil
	}
	if len(toolInput) > MaxInputBytes {
		return nil, inputErrorf("tool input is %d bytes, more than the %d allowed", len(toolInput), MaxInputBytes)
	}
	n, p := parseSpans(toolInput)
	if p != nil {
		return nil, inputErrorf("tool input is not valid JSON (at byte %d): %s", p.Start, p.Message)
	}
	obj, ok := n.value().(map[string]any)
	if !ok {
		return nil, inputErrorf("tool input must be a JSON object, got %s", kindName(n.kind))
	}
	return obj, nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}

// validateInput checks input against the tool's compiled input schema.
func (d *Definition) validateInput(input map[string]any) error {
	sch := d.schema
	if sch == nil { // a Definition built by hand; compile without caching (no data race)
		c := *d
		if err := c.compileInputSchema(); err != nil {
			return err
		}
		sch = c.schema
	}
	if err := validateWith(sch, input); err != nil {
		return inputErrorf("tool input does not match the input schema: %v", err)
	}
	return nil
}

// ValidateInput parses toolInput and checks it against the definition's
// input schema; the server may use it before asking for confirmation.
func (d *Definition) ValidateInput(toolInput []byte) (map[string]any, error) {
	in, err := ParseInput(toolInput)
	if err != nil {
		return nil, err
	}
	if err := d.validateInput(in); err != nil {
		return nil, err
	}
	return in, nil
}
