// This file bounds what rendering produces (value and object sizes, fmt
// widths, quantities).

package patchandtransform

import (
	"fmt"
	"strconv"
	"strings"
)

// Crossplane runs function-patch-and-transform in a container with a
// memory limit; crd-lsp renders in its own process. Transforms can grow a
// value without end (three chained Replace transforms, a Format that
// reuses its argument, a width of a million), so rendering caps every
// value it produces and every object it writes. Both are far above what
// the API server stores: an object of at most 3 MiB (its request limit;
// etcd's is 1.5 MiB).
const (
	// MaxValueSize bounds each value rendering produces: a transform's
	// output, a combined string, the value a patch writes (its JSON size).
	MaxValueSize = 1 << 20
	// MaxObjectSize bounds a rendered resource, and the composite and
	// environment that environment patches write (JSON size).
	MaxObjectSize = 3 << 20
	// formatCeiling: a Format whose output may be larger than this is not
	// run at all (its output would be over MaxValueSize anyway, unless the
	// estimate is loose; it is an upper bound).
	formatCeiling = 16 * MaxValueSize
)

// LimitError is a value or object that rendering refused to produce
// because it would exceed one of the limits above.
type LimitError struct {
	What  string // "the string transform's output", "the combined value"
	Size  int    // the size (or a lower bound of it), in bytes
	Limit int
	// Estimated is true when Size is an upper bound computed before
	// producing the value.
	Estimated bool
	// Digits: Size and Limit count the digits of a number, not bytes.
	Digits bool
}

func (e *LimitError) Error() string {
	if e.Digits {
		return fmt.Sprintf("%s has %d digits, over crd-lsp's rendering limit of %d (Crossplane would run this in a function with a time limit)", e.What, e.Size, e.Limit)
	}
	size := "is " + byteSize(e.Size)
	if e.Estimated {
		size = "could be up to " + byteSize(e.Size)
	}
	return fmt.Sprintf("%s %s, over crd-lsp's rendering limit of %s (Crossplane would run this in a function with a memory limit)", e.What, size, byteSize(e.Limit))
}

func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// valueSize is v's size as JSON, roughly (numbers count their digits,
// strings their bytes and quotes). It stops counting once past budget
// and then returns a number above budget.
func valueSize(v any, budget int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n > budget {
			return
		}
		switch x := v.(type) {
		case string:
			n += len(x) + 2
		case map[string]any:
			n += 2
			for k, e := range x {
				n += len(k) + 4
				walk(e)
				if n > budget {
					return
				}
			}
		case []any:
			n += 2
			for _, e := range x {
				n++
				walk(e)
				if n > budget {
					return
				}
			}
		case nil:
			n += 4
		case bool:
			n += 5
		case int64:
			n += len(strconv.FormatInt(x, 10))
		default:
			n += 24
		}
	}
	walk(v)
	return n
}

// checkValue fails when v is over MaxValueSize.
func checkValue(what string, v any) error {
	if n := valueSize(v, MaxValueSize); n > MaxValueSize {
		return &LimitError{What: what, Size: n, Limit: MaxValueSize}
	}
	return nil
}

// fmtMaxWidth is the largest width or precision package fmt accepts; it
// ignores larger ones.
const fmtMaxWidth = 1e6

// formatBound is an upper bound of len(fmt.Sprintf(format, args...)):
// every verb prints at most its width and precision plus ten bytes per
// byte of the largest argument (%q and %x escape at most that much; %v of
// an object adds its punctuation).
func formatBound(format string, args ...any) int {
	largest := 0
	for _, a := range args {
		largest = max(largest, valueSize(a, formatCeiling))
	}
	n := len(format)
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		// Flags, argument indexes, width and precision, then the verb.
		width, prec := 0, 0
		cur := &width
		for ; i < len(format); i++ {
			c := format[i]
			switch {
			case c >= '0' && c <= '9': // the 0 flag adds nothing either
				*cur = min(*cur*10+int(c-'0'), fmtMaxWidth)
				continue
			case strings.IndexByte("+-# []*", c) >= 0:
				if c == '*' {
					*cur = fmtMaxWidth // a width argument: whatever it is
				}
				continue
			case c == '.':
				cur = &prec
				continue
			}
			break
		}
		n += width + prec + 10*largest + 32
	}
	return n
}

// formatValue is fmt.Sprintf, refused when its output would be over
// MaxValueSize.
func formatValue(what, f string, args ...any) (string, error) {
	if b := formatBound(f, args...); b > formatCeiling {
		return "", &LimitError{What: what, Size: b, Limit: MaxValueSize, Estimated: true}
	}
	out := fmt.Sprintf(f, args...)
	if len(out) > MaxValueSize {
		return "", &LimitError{What: what, Size: len(out), Limit: MaxValueSize}
	}
	return out, nil
}

// replaceAll is strings.ReplaceAll, refused when the result would be over
// MaxValueSize (its size is known before it is built).
func replaceAll(what, s, search, repl string) (string, error) {
	if len(repl) > len(search) {
		if n := len(s) + strings.Count(s, search)*(len(repl)-len(search)); n > MaxValueSize {
			return "", &LimitError{What: what, Size: n, Limit: MaxValueSize}
		}
	}
	return strings.ReplaceAll(s, search, repl), nil
}

// budget tracks how large an object patches have made it: writes add the
// size of what they write, and when the running total passes
// MaxObjectSize the object is measured.
type budget struct {
	obj  map[string]any
	used int
}

func newBudget(obj map[string]any) *budget {
	return &budget{obj: obj, used: valueSize(obj, MaxObjectSize)}
}

// add accounts for writing a value of n bytes into the object; it fails
// when the object would then be over MaxObjectSize.
func (b *budget) add(what string, n int) error {
	if b == nil {
		return nil
	}
	if b.used+n > MaxObjectSize {
		b.used = valueSize(b.obj, MaxObjectSize) // writes may have replaced values
		if b.used+n > MaxObjectSize {
			return &LimitError{What: what, Size: b.used + n, Limit: MaxObjectSize}
		}
	}
	b.used += n
	return nil
}

// maxQuantityExponent bounds the decimal exponent of a quantity rendering
// converts: the API machinery computes with exact big numbers, and
// "1E-99999999" takes it most of a minute (1E-999999 50 ms).
const maxQuantityExponent = 999999

// maxQuantityLength bounds the length of a quantity rendering converts (a
// megabyte of digits takes over a second).
const maxQuantityLength = 4096

// checkQuantity refuses a quantity longer than maxQuantityLength or whose
// exponent is over maxQuantityExponent, before it is parsed.
func checkQuantity(s string) error {
	if len(s) > maxQuantityLength {
		return &LimitError{What: "the quantity to convert", Size: len(s), Limit: maxQuantityLength}
	}
	i := strings.LastIndexAny(s, "eE")
	if i < 0 {
		return nil
	}
	digits := strings.TrimLeft(s[i+1:], "+-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil // not an exponent (the suffix Ei): ParseQuantity decides
	}
	if n, err := strconv.Atoi(digits); err == nil && n <= maxQuantityExponent {
		return nil
	}
	return &LimitError{What: fmt.Sprintf("the quantity %.40q, whose exponent", s), Size: len(digits), Limit: 6, Digits: true}
}
