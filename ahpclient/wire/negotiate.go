package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CodeUnsupportedProtocolVersion is the JSON-RPC error code of a refused
// initialize (docs/ahp.md §7). Its data is UnsupportedProtocolVersionData.
const CodeUnsupportedProtocolVersion = -32005

// semver is MAJOR.MINOR.PATCH[-pre][+build]; build metadata is ignored.
type semver struct {
	major, minor, patch int
	pre                 string
}

func parseSemver(v string) (semver, bool) {
	v, _, _ = strings.Cut(strings.TrimSpace(v), "+")
	core, pre, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return semver{}, false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return semver{}, false
		}
		n[i] = x
	}
	return semver{n[0], n[1], n[2], pre}, true
}

// compare orders by precedence; a pre-release sorts before its release and
// pre-releases of one version compare as strings (enough for "-dev", "-rc.1").
func (a semver) compare(b semver) int {
	for _, d := range [...]int{a.major - b.major, a.minor - b.minor, a.patch - b.patch} {
		if d != 0 {
			return d
		}
	}
	switch {
	case a.pre == b.pre:
		return 0
	case a.pre == "":
		return 1
	case b.pre == "":
		return -1
	}
	return strings.Compare(a.pre, b.pre)
}

// caretCompatible reports whether v satisfies ^base as the host reads it
// (docs/ahp.md §9 "Versions (verified)"): same major, for 0.x also the same
// minor, and not below base. 0.0.x gets no special case (the spec names
// none, and no AHP version has used it).
func caretCompatible(v, base semver) bool {
	if v.major != base.major || (base.major == 0 && v.minor != base.minor) {
		return false
	}
	return v.compare(base) >= 0
}

// supportedBase reads one entry of a host's supported list: a version or a
// caret range "^X.Y.Z" (the error data MAY carry ranges). Other range
// syntaxes are not modelled and match nothing.
func supportedBase(s string) (semver, bool) {
	return parseSemver(strings.TrimPrefix(strings.TrimSpace(s), "^"))
}

// Negotiate models how an agent host picks the protocol version from an
// initialize offer, as upstream 1.1.0-dev does (verified, docs/ahp.md §9):
// the highest offered version that is caret-compatible with one of the
// versions the host supports, ignoring the client's order. Unparseable
// offers are skipped. When nothing matches it returns a
// *VersionNegotiationError carrying both lists; its Data is what the host
// answers with -32005 (supportedVersions is required there).
//
// It is pure, for tests and the in-repo test host; ahpls itself never
// negotiates, it offers ProtocolVersions() and accepts the host's choice
// through SelectDialect.
func Negotiate(offered, hostSupported []string) (string, error) {
	var bases []semver
	for _, s := range hostSupported {
		if b, ok := supportedBase(s); ok {
			bases = append(bases, b)
		}
	}
	best, bestV, found := "", semver{}, false
	for _, o := range offered {
		v, ok := parseSemver(o)
		if !ok {
			continue
		}
		for _, b := range bases {
			if caretCompatible(v, b) && (!found || v.compare(bestV) > 0) {
				best, bestV, found = o, v, true
				break
			}
		}
	}
	if !found {
		return "", &VersionNegotiationError{
			Offered:   append([]string(nil), offered...),
			Supported: append([]string(nil), hostSupported...),
		}
	}
	return best, nil
}

// VersionNegotiationError is a refused offer: the host speaks none of the
// offered versions. errors.Is(err, ErrUnsupportedVersion) holds. It is
// final for a connection attempt: reconnecting with the same offer is
// refused the same way, so callers must not retry in a loop.
type VersionNegotiationError struct {
	Offered   []string
	Supported []string // may be empty: older hosts omit the data
}

func (e *VersionNegotiationError) Error() string {
	return DescribeVersionRefusal(e.Supported, e.Offered)
}

// Unwrap makes errors.Is(err, ErrUnsupportedVersion) true.
func (e *VersionNegotiationError) Unwrap() error { return ErrUnsupportedVersion }

// Data is the -32005 error data a host sends for this refusal.
func (e *VersionNegotiationError) Data() UnsupportedProtocolVersionData {
	return UnsupportedProtocolVersionData{SupportedVersions: append([]string{}, e.Supported...)}
}

// SupportedVersionsFromData reads supportedVersions from a -32005 error's
// data. Missing, null or malformed data gives nil: the field is optional
// before 1.x and a refusal must still be reported, not turned into a decode
// error.
func SupportedVersionsFromData(data json.RawMessage) []string {
	if len(data) == 0 {
		return nil
	}
	var d struct {
		SupportedVersions []any `json:"supportedVersions"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	var out []string
	for _, v := range d.SupportedVersions {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// UnsupportedVersionMessage turns a -32005 error's data into the message
// ahpls shows the user, e.g. "the agent host supports protocol 1.0.0, 0.9.0;
// ahpls offered 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1 (this ahpls is older than
// the agent host: upgrade ahpls)".
func UnsupportedVersionMessage(data json.RawMessage, offered []string) string {
	return DescribeVersionRefusal(SupportedVersionsFromData(data), offered)
}

// DescribeVersionRefusal is UnsupportedVersionMessage for already decoded
// lists. It names both lists and, when they do not overlap in time, which
// side to upgrade.
func DescribeVersionRefusal(supported, offered []string) string {
	supported = slices.DeleteFunc(slices.Clone(supported), func(s string) bool { return strings.TrimSpace(s) == "" })
	off := "nothing"
	if len(offered) > 0 {
		off = strings.Join(offered, ", ")
	}
	if len(supported) == 0 {
		return fmt.Sprintf("the agent host refused every protocol version ahpls offered (%s) and did not say which it supports", off)
	}
	msg := fmt.Sprintf("the agent host supports protocol %s; ahpls offered %s", strings.Join(supported, ", "), off)
	switch hostNewer(supported, offered) {
	case 1:
		msg += " (this ahpls is older than the agent host: upgrade ahpls)"
	case -1:
		msg += " (the agent host is older than this ahpls supports: upgrade the agent host)"
	}
	return msg
}

// hostNewer is 1 when every parseable supported version is above every
// offered one, -1 when every one is below, else 0 (mixed or unparseable).
func hostNewer(supported, offered []string) int {
	var sup, off []semver
	for _, s := range supported {
		if v, ok := supportedBase(s); ok {
			sup = append(sup, v)
		}
	}
	for _, s := range offered {
		if v, ok := parseSemver(s); ok {
			off = append(off, v)
		}
	}
	if len(sup) == 0 || len(off) == 0 {
		return 0
	}
	above, below := true, true
	for _, s := range sup {
		for _, o := range off {
			c := s.compare(o)
			above = above && c > 0
			below = below && c < 0
		}
	}
	switch {
	case above:
		return 1
	case below:
		return -1
	}
	return 0
}

// SelectDialect accepts the host's choice from initialize's protocolVersion
// and returns the dialect that speaks it: V1 for 1.x and 0.9.x, V08 for
// 0.5.1 … 0.8.x. A version ahpls cannot speak (a host that ignored the
// offer) is an error wrapping ErrUnsupportedVersion that names both sides.
func SelectDialect(chosen string) (Dialect, error) {
	d, err := DialectFor(chosen)
	if err != nil {
		return nil, fmt.Errorf("%w: the agent host chose protocol %q, which ahpls does not speak (ahpls speaks %s)",
			ErrUnsupportedVersion, chosen, strings.Join(ProtocolVersions(), ", "))
	}
	return d, nil
}

// IsV1 reports whether a negotiated version uses the 1.x dialect (0.9.0
// and later); reduce.Options.Dialect follows the same rule.
func IsV1(version string) bool {
	major, minor, ok := parseVersion(version)
	return ok && isV1Version(major, minor)
}

// isV1Version: 1.x, 0.10.x and 0.9.x speak the V1 shapes. 0.10.0 added
// canvases only (ACTION_INTRODUCED_IN, docs/ahp.md §9), outside ahpls's
// slice; 1.1.0 added channel/* and tcp/* notifications (ignored), the
// per-channel reconnect (reconnect.go), chat/toolCallProgress and _meta.
func isV1Version(major, minor int) bool {
	return major == 1 || (major == 0 && (minor == 9 || minor == 10))
}
