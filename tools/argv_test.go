package tools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpandArgv(t *testing.T) {
	tmpl := func(items ...ArgvItem) []ArgvItem { return items }
	cases := []struct {
		name  string
		tmpl  []ArgvItem
		input string
		dash  bool
		want  []string
		err   string
	}{
		{"literal only", tmpl(ArgvItem{"go"}, ArgvItem{"vet"}), `{}`, false, []string{"go", "vet"}, ""},
		{"string", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":"a b"}`, false, []string{"p", "a b"}, ""},
		{"number as written", tmpl(ArgvItem{"p"}, ArgvItem{"{n}"}), `{"n":1.50}`, false, []string{"p", "1.50"}, ""},
		{"boolean", tmpl(ArgvItem{"p"}, ArgvItem{"{b}"}), `{"b":true}`, false, []string{"p", "true"}, ""},
		{"absent dropped", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}, ArgvItem{"z"}), `{}`, false, []string{"p", "z"}, ""},
		{"null dropped", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":null}`, false, []string{"p"}, ""},
		{"group present", tmpl(ArgvItem{"go"}, ArgvItem{"-run", "{r}"}), `{"r":"^T$"}`, false, []string{"go", "-run", "^T$"}, ""},
		{"group absent", tmpl(ArgvItem{"go"}, ArgvItem{"-run", "{r}"}, ArgvItem{"./..."}), `{}`, false, []string{"go", "./..."}, ""},
		{"group with empty array", tmpl(ArgvItem{"p"}, ArgvItem{"-f", "{a}"}), `{"a":[]}`, false, []string{"p"}, ""},
		{"array", tmpl(ArgvItem{"p"}, ArgvItem{"{a}"}), `{"a":["x",2,false]}`, false, []string{"p", "x", "2", "false"}, ""},
		{"array in group", tmpl(ArgvItem{"p"}, ArgvItem{"-f", "{a}"}), `{"a":["x","y"]}`, false, []string{"p", "-f", "x", "y"}, ""},
		{"escaped braces", tmpl(ArgvItem{"p"}, ArgvItem{"{{x}}"}), `{"x":"no"}`, false, []string{"p", "{x}"}, ""},
		{"embedded braces literal", tmpl(ArgvItem{"p"}, ArgvItem{"a{x}b"}), `{"x":"no"}`, false, []string{"p", "a{x}b"}, ""},
		{"argv0 never substituted", tmpl(ArgvItem{"{x}"}), `{"x":"rm"}`, false, []string{"{x}"}, ""},
		{"object refused", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":{}}`, false, nil, "must be a string"},
		{"nested array refused", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":[[1]]}`, false, nil, `"x"[0]`},
		{"NUL refused", tmpl(ArgvItem{"p"}, ArgvItem{"--"}, ArgvItem{"{x}"}), `{"x":"a\u0000b"}`, false, nil, "NUL"},
		{"dash refused", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":"-rf"}`, false, nil, "starts with '-'"},
		{"dash in array refused", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":["a","--b"]}`, false, nil, "starts with '-'"},
		{"dash after --", tmpl(ArgvItem{"p"}, ArgvItem{"--"}, ArgvItem{"{x}"}), `{"x":"-rf"}`, false, []string{"p", "--", "-rf"}, ""},
		{"dash after -- in same group", tmpl(ArgvItem{"p"}, ArgvItem{"--", "{x}"}), `{"x":"-rf"}`, false, []string{"p", "--", "-rf"}, ""},
		{"-- of a dropped group does not count", tmpl(ArgvItem{"p"}, ArgvItem{"--", "{y}"}, ArgvItem{"{x}"}), `{"x":"-rf"}`, false, nil, "starts with '-'"},
		{"dash allowed by tool", tmpl(ArgvItem{"p"}, ArgvItem{"{x}"}), `{"x":"-rf"}`, true, []string{"p", "-rf"}, ""},
		{"negative number is a dash value", tmpl(ArgvItem{"p"}, ArgvItem{"{n}"}), `{"n":-1}`, false, nil, "starts with '-'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := ParseInput([]byte(c.input))
			require.NoError(t, err)
			got, err := ExpandArgv(c.tmpl, in, c.dash)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				var ie *InputError
				assert.ErrorAs(t, err, &ie)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestArgvItemJSON(t *testing.T) {
	var items []ArgvItem
	require.NoError(t, json.Unmarshal([]byte(`["a",["b","{c}"]]`), &items))
	assert.Equal(t, []ArgvItem{{"a"}, {"b", "{c}"}}, items)
	b, err := json.Marshal(items)
	require.NoError(t, err)
	assert.JSONEq(t, `["a",["b","{c}"]]`, string(b))
	assert.Error(t, json.Unmarshal([]byte(`[1]`), &items))
}

// Whatever the value, a placeholder yields exactly one argument equal to it
// (or an input error); nothing splits, joins or interprets it.
func FuzzExpandArgvOneArgument(f *testing.F) {
	for _, s := range []string{"; rm -rf /", "$(x)", "`x`", "a\nb", "--x", "*", "", "\x00", "{y}", "{{y}}"} {
		f.Add(s)
	}
	tmpl := []ArgvItem{{"prog"}, {"--"}, {"{x}"}, {"lit"}}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := ExpandArgv(tmpl, map[string]any{"x": v}, false)
		if err != nil {
			var ie *InputError
			if !assertAs(err, &ie) {
				t.Fatalf("non-input error %v", err)
			}
			return
		}
		if len(got) != 4 || got[0] != "prog" || got[1] != "--" || got[2] != v || got[3] != "lit" {
			t.Fatalf("value %q expanded to %q", v, got)
		}
	})
}

func assertAs(err error, target **InputError) bool {
	e, ok := err.(*InputError)
	if ok {
		*target = e
	}
	return ok
}
