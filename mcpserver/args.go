package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// List is a tool argument that takes a list of strings. Some clients send
// a bare string where a one-item list is meant ("a.md" for ["a.md"]); it
// is taken as that list rather than refused.
type List []string

// UnmarshalJSON reads a JSON array of strings, a string or null ("" and
// null are the empty list).
func (l *List) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = nil
		if s != nil && *s != "" {
			*l = List{*s}
		}
		return nil
	}
	var items []string
	if err := json.Unmarshal(b, &items); err != nil {
		return fmt.Errorf("want a string or a list of strings: %v", err)
	}
	*l = items
	return nil
}

// inputSchema is T's JSON schema with every List as "a string or a list
// of strings" (the SDK validates arguments against it before they are
// decoded, so the schema must admit what UnmarshalJSON takes).
func inputSchema[T any]() *jsonschema.Schema {
	list := &jsonschema.Schema{Types: []string{"null", "array", "string"}, Items: &jsonschema.Schema{Type: "string"}}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[List](): list}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", reflect.TypeFor[T](), err)) // a programming error: the types are fixed
	}
	return s
}
