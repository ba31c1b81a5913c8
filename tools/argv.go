package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Argv templates (the security core of command tools).
//
// There is no shell anywhere: the template is a fixed list of elements and
// the model only supplies values. The rules:
//
//   - An element that is exactly "{name}" is a placeholder for the input
//     property name. It becomes exactly one argument holding the value as
//     text (strings verbatim, numbers as written in the input, booleans as
//     "true"/"false"), whatever characters it contains: spaces, quotes, ";",
//     "$(...)", backticks, newlines and "*" are just bytes of that argument.
//   - An array value becomes one argument per element (elements must be
//     strings, numbers or booleans). An object value is an input error.
//   - An absent or null value, or an empty array, emits nothing.
//   - An element may be a group (a JSON array of strings). A group is emitted
//     as a whole, or left out entirely when any placeholder in it is absent,
//     null or an empty array: ["-run", "{pattern}"] yields "-run" "^TestX$"
//     or nothing.
//   - "{{text}}" is the literal argument "{text}". Any other element is
//     literal, including one that merely contains braces.
//   - Values starting with '-' are refused unless a literal "--" was emitted
//     earlier in the argv or the tool sets allowLeadingDash: otherwise a
//     value such as "-exec=evil" could be read as an option by the program.
//   - A value containing a NUL byte is refused (it cannot be an argument).
//   - argv[0] is always literal: the model never chooses the program.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{([A-Za-z_][A-Za-z0-9_]*)\}$`) })

// placeholder returns the property name if elem is a whole-element
// placeholder.
func placeholder(elem string) (string, bool) {
	m := placeholderRE().FindStringSubmatch(elem)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// literal returns the argument a non-placeholder element stands for.
func literal(elem string) string {
	if len(elem) >= 4 && strings.HasPrefix(elem, "{{") && strings.HasSuffix(elem, "}}") {
		return elem[1 : len(elem)-1]
	}
	return elem
}

// InputError is a problem with the tool input supplied by the model; the
// call completes with success:false and this message, so the model can fix
// its input.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// ExpandArgv applies the template rules above to input (the decoded tool
// input object). It returns the argument vector including argv[0].
func ExpandArgv(tmpl []ArgvItem, input map[string]any, allowLeadingDash bool) ([]string, error) {
	out := make([]string, 0, len(tmpl)+4)
	sawDashDash := false
	for i, group := range tmpl {
		var args []string
		present := true
		dd := sawDashDash // a "--" counts only if its group is emitted
		for _, elem := range group {
			name, ok := placeholder(elem)
			if !ok || i == 0 {
				lit := literal(elem)
				if lit == "--" {
					dd = true
				}
				args = append(args, lit)
				continue
			}
			vals, err := placeholderValues(name, input[name])
			if err != nil {
				return nil, err
			}
			if len(vals) == 0 {
				present = false
				break
			}
			for _, v := range vals {
				if strings.IndexByte(v, 0) >= 0 {
					return nil, inputErrorf("input %q contains a NUL byte, which cannot be passed as an argument", name)
				}
				if strings.HasPrefix(v, "-") && !dd && !allowLeadingDash {
					return nil, inputErrorf("input %q value %q starts with '-' and could be taken as an option; this tool does not accept such values", name, v)
				}
			}
			args = append(args, vals...)
		}
		if !present {
			continue
		}
		sawDashDash = dd
		out = append(out, args...)
	}
	return out, nil
}

// placeholderValues turns one input value into its arguments; nil means
// "absent".
func placeholderValues(name string, v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, ok := scalarText(e)
			if !ok {
				return nil, inputErrorf("input %q[%d] must be a string, number or boolean", name, i)
			}
			out = append(out, s)
		}
		return out, nil
	default:
		s, ok := scalarText(v)
		if !ok {
			return nil, inputErrorf("input %q must be a string, number, boolean or array of them", name)
		}
		return []string{s}, nil
	}
}

func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
