package generate

import (
	"bytes"
	"strconv"
)

// Edited starts the body of a difference document written as line edits
// of the newest bundle's document of the same key. The edit lines that
// follow are "=N" (keep the next N lines of the newest document), "-N"
// (skip them) and "+N" followed by N lines to insert. Every line,
// including the last, ends in a newline.
const Edited = "#edit\n"

// maxEdits bounds the edit distance searched (lines inserted plus lines
// deleted); a document further from the newest one is written whole.
const maxEdits = 4000

// lines splits b after each newline; b ends in one.
func lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// editScript returns the line edits turning base into doc (see Edited),
// or false when they are more than maxEdits apart.
func editScript(base, doc []byte) ([]byte, bool) {
	a, b := lines(base), lines(doc)
	ops, ok := myers(a, b)
	if !ok {
		return nil, false
	}
	var buf bytes.Buffer
	buf.WriteString(Edited)
	// ops: one byte per step: '=' keep, '-' delete from a, '+' insert b.
	bi := 0
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && ops[j] == ops[i] {
			j++
		}
		n := j - i
		buf.WriteByte(ops[i])
		buf.WriteString(strconv.Itoa(n))
		buf.WriteByte('\n')
		switch ops[i] {
		case '+':
			for k := 0; k < n; k++ {
				buf.Write(b[bi])
				bi++
			}
		case '=':
			bi += n
		}
		i = j
	}
	return buf.Bytes(), true
}

// myers is the Myers O((N+M)D) shortest edit script of a into b, one op
// per line ('=', '-', '+'), or false beyond maxEdits.
func myers(a, b [][]byte) ([]byte, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	eq := func(x, y int) bool { return bytes.Equal(a[x], b[y]) }
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: insert
			} else {
				x = v[off+k-1] + 1 // right: delete
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, off, n, m, d), true
			}
		}
	}
	return nil, false
}

// backtrack walks the saved frontiers back from (n, m) to the origin.
func backtrack(trace [][]int, off, n, m, dEnd int) []byte {
	var rev []byte
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, '=')
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, '+')
		} else {
			rev = append(rev, '-')
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, '=')
		x, y = x-1, y-1
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
