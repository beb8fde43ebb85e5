// This file holds the limits on templates and runs (Bounds, LimitError).

package gotemplating

import (
	"fmt"
	"strings"
	"time"
)

// Limits bound what a template may cost crd-lsp, before and while it is
// parsed and run. text/template's parser recurses once per nested block
// (an "else if" chain nests too) and per parenthesis, so a deep enough
// template overflows the goroutine stack, a fatal error no recover()
// catches: the nesting is measured by a linear pre-scan and refused
// before text/template sees the template.
const (
	// MaxTemplateSize is the largest template (inline, joined, from the
	// workspace's files or the environment) crd-lsp parses or runs.
	// Kubernetes stores a whole Composition in at most ~1.5 MiB.
	MaxTemplateSize = 1 << 20
	// MaxNesting is the deepest nesting of blocks (if, range, with,
	// define, block, each "else if"/"else with" of a chain) plus
	// parentheses inside one action.
	MaxNesting = 200
	// MaxOutput is the most a template may write when run.
	MaxOutput = 8 << 20
	// MaxValue is the largest string, list or map a template function
	// may build (sprig's repeat, until, indent, …; printf).
	MaxValue = 1 << 20
	// MaxSteps bounds the loop iterations, template calls and includes of
	// one run.
	MaxSteps = 250_000
	// MaxIncludeDepth bounds nested include calls of one run, whatever
	// their names (the function allows 1,000 per name, and fails past
	// that, as crd-lsp then does; each include starts a fresh
	// text/template execution, whose own depth limit restarts).
	MaxIncludeDepth = 1500
	// MaxTemplateDepth bounds nested template bodies of one run (those
	// {{ template }} calls and those include runs: above the function's
	// own 1,000 includes of one name); text/template's own limit is
	// 100,000 per execution.
	MaxTemplateDepth = 2500
	// DefaultTimeout bounds one run.
	DefaultTimeout = 2 * time.Second
)

// LimitError is a template refused, or a run stopped, by one of crd-lsp's
// limits (not by the function): where it is (an offset in the template,
// -1 for none) and which limit.
type LimitError struct {
	Offset  int
	Message string
}

func (e *LimitError) Error() string { return e.Message }

// Bounds checks a template's size and nesting against the limits without
// parsing it, in one pass; nil when it is within them.
func Bounds(text, left, right string) *LimitError {
	if len(text) > MaxTemplateSize {
		return &LimitError{Offset: -1, Message: fmt.Sprintf("the template is %s, over crd-lsp's limit of %s: it is not checked or rendered", size(len(text)), size(MaxTemplateSize))}
	}
	if left == "" {
		left = "{{"
	}
	if right == "" {
		right = "}}"
	}
	depth := 0
	// chains counts, per open block, the "else if"/"else with" it holds:
	// its end closes them too.
	var chains []int
	i := 0
	for {
		j := strings.Index(text[i:], left)
		if j < 0 {
			return nil
		}
		start := i + j
		p := start + len(left)
		if p+1 < len(text) && text[p] == '-' && isSpace(text[p+1]) {
			p += 2
		}
		if strings.HasPrefix(text[p:], "/*") {
			k := strings.Index(text[p+2:], "*/")
			if k < 0 {
				return nil // the parser reports the unclosed comment
			}
			i = p + 2 + k + 2
			continue
		}
		for p < len(text) && isSpace(text[p]) {
			p++
		}
		w := p
		for w < len(text) && (text[w] >= 'a' && text[w] <= 'z') {
			w++
		}
		word := text[p:w]
		if word == "else" {
			q := w
			for q < len(text) && isSpace(text[q]) {
				q++
			}
			if strings.HasPrefix(text[q:], "if") || strings.HasPrefix(text[q:], "with") {
				if len(chains) > 0 {
					chains[len(chains)-1]++
					depth++
				}
			}
		}
		switch word {
		case "if", "range", "with", "define", "block":
			depth++
			chains = append(chains, 0)
		case "end":
			if n := len(chains); n > 0 {
				depth -= 1 + chains[n-1]
				chains = chains[:n-1]
			}
		}
		// Parentheses inside the action, outside strings.
		parens, deepest := 0, 0
		end, closed := len(text), false
	body:
		for p < len(text) {
			if e, ok := rightAt(text, p, right); ok {
				end, closed = e, true
				break
			}
			switch c := text[p]; c {
			case '"', '\'':
				p++
				for p < len(text) && text[p] != c && text[p] != '\n' {
					if text[p] == '\\' {
						p++
					}
					p++
				}
				p++
			case '`':
				k := strings.IndexByte(text[p+1:], '`')
				if k < 0 {
					break body
				}
				p += 2 + k
			case '(':
				parens++
				deepest = max(deepest, parens)
				p++
			case ')':
				parens--
				p++
			default:
				p++
			}
		}
		if depth+deepest > MaxNesting {
			return &LimitError{Offset: start, Message: fmt.Sprintf("the template nests blocks and parentheses deeper than crd-lsp's limit of %d here: it is not checked or rendered", MaxNesting)}
		}
		if !closed {
			return nil // the parser reports the unclosed action
		}
		i = end
	}
}

func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
