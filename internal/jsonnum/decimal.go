package jsonnum

// Decimal is an exact JSON number: ±digits × 10^exp, digits without
// leading or trailing zeros ("" is zero). Comparing two of them costs the
// length of their texts, whatever the exponent: an arbitrary-precision
// rational built from "1e999999999" would take seconds and gigabytes,
// and float64 cannot tell 3600 from 3600.0000000000000001.
type Decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp saturates exponents: far beyond any text length, so saturating
// never changes the order of two numbers that fit in memory.
const maxExp = 1 << 50

// ParseDecimal parses a JSON number literal; ok is false for anything else.
func ParseDecimal(s string) (Decimal, bool) {
	var d Decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	var digits []byte
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		digits = append(digits, s[i])
		i++
	}
	if i == start {
		return Decimal{}, false
	}
	var frac int64
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			digits = append(digits, s[i])
			i++
		}
		if i == fs {
			return Decimal{}, false
		}
		frac = int64(i - fs)
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if exp < maxExp {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return Decimal{}, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return Decimal{}, false
	}
	exp -= frac
	k := 0
	for k < len(digits) && digits[k] == '0' {
		k++
	}
	digits = digits[k:]
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return Decimal{}, true
	}
	d.digits, d.exp = string(digits), exp
	return d, true
}

// IsInteger reports whether d is a whole number (1.0 and 1e3 are).
func (d Decimal) IsInteger() bool { return d.digits == "" || d.exp >= 0 }

// Cmp returns -1, 0 or 1 as d is less than, equal to or greater than e.
func (d Decimal) Cmp(e Decimal) int {
	ds, es := d.Sign(), e.Sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	m := d.cmpAbs(e)
	if ds < 0 {
		return -m
	}
	return m
}

// Sign is -1, 0 or 1.
func (d Decimal) Sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d Decimal) cmpAbs(e Decimal) int {
	// The position of the leading digit decides first; with the same
	// position the digit strings compare as written (no trailing zeros).
	dp, ep := int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp
	switch {
	case dp < ep:
		return -1
	case dp > ep:
		return 1
	case d.digits < e.digits:
		return -1
	case d.digits > e.digits:
		return 1
	}
	return 0
}

// Exp is the power of ten of the last significant digit (saturated far
// beyond any text length): 1.5e3 has 2, 0.25 has -2.
func (d Decimal) Exp() int64 { return d.exp }
