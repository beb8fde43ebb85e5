// This file handles LSP messages larger than maxFrame without reading them
// into memory: what they are is found by scanning their JSON as it
// streams past, and the session is told, rather than the message being
// dropped without a word.

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// methodOverLimit is the notification the stream makes of a didOpen or
// didChange too large to read: the document is known to be open (or
// changed) and over the limit, its text is not.
const methodOverLimit = internalPrefix + "documentOverLimit"

// internalPrefix starts the methods of the messages the server makes
// itself. They never come from the wire: each carries its stream's token,
// and the handler refuses one without it (server.internal).
const internalPrefix = "crd-lsp/internal/"

// overLimitParams are methodOverLimit's params.
type overLimitParams struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Bytes   int64  `json:"bytes"`
	Limit   int64  `json:"limit"`
	// Token is the stream's (resilientStream.token).
	Token string `json:"token"`
}

// frameInfo is what oversizeFrame learns about a message.
type frameInfo struct {
	method  string
	id      []byte // the raw JSON of the id; nil for a notification
	uri     string
	version int32
}

// oversizeFrame consumes a body of length bytes (over maxFrame) and says
// what to do instead of handling it: a synthesized notification for a
// document that was opened or changed, an error response written for a
// request, or (nil, nil) to skip it.
func (s *resilientStream) oversizeFrame(length int64) (jsonrpc2.Message, error) {
	lr := &io.LimitedReader{R: s.in, N: length}
	info := scanFrame(bufio.NewReaderSize(lr, 4096))
	if _, err := io.Copy(io.Discard, lr); err != nil || lr.N > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	s.log.Warn("skipping LSP message over the size limit", "bytes", length, "limit", s.maxFrame, "method", info.method)
	switch {
	case info.id != nil:
		var id jsonrpc2.ID
		if n, err := strconv.ParseInt(string(info.id), 10, 64); err == nil {
			id = jsonrpc2.NewNumberID(n)
		} else if str, err := strconv.Unquote(string(info.id)); err == nil {
			id = jsonrpc2.NewStringID(str)
		} else {
			return nil, nil // no id to answer
		}
		resp := jsonrpc2.NewResponse(id, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"crd-lsp: a %s request of %d bytes is over the %d byte message limit", info.method, length, s.maxFrame))
		if _, err := s.out.Write(context.Background(), resp); err != nil {
			s.log.Warn("answering an oversize request failed", "error", err)
		}
		return nil, nil
	case (info.method == protocol.MethodTextDocumentDidOpen || info.method == protocol.MethodTextDocumentDidChange) && info.uri != "":
		params, _ := json.Marshal(overLimitParams{URI: info.uri, Version: info.version, Bytes: length, Limit: int64(s.maxFrame), Token: s.token})
		return jsonrpc2.NewNotification(methodOverLimit, params), nil
	}
	return nil, nil
}

// scanFrame reads a JSON-RPC message from r, keeping only the method, the
// id and params.textDocument's uri and version; strings are not kept
// beyond a few kilobytes, so a message of any size costs no memory.
func scanFrame(r *bufio.Reader) frameInfo {
	var info frameInfo
	sc := &jsonScan{r: r}
	sc.value(nil, func(path []string, raw []byte) {
		switch pathKey(path) {
		case "method":
			info.method, _ = strconv.Unquote(string(raw))
		case "id":
			info.id = append([]byte(nil), raw...)
		case "params.textDocument.uri":
			info.uri, _ = strconv.Unquote(string(raw))
		case "params.textDocument.version":
			n, _ := strconv.ParseInt(string(raw), 10, 32)
			info.version = int32(n)
		}
	})
	return info
}

func pathKey(p []string) string {
	out := ""
	for i, s := range p {
		if i > 0 {
			out += "."
		}
		out += s
	}
	return out
}

// jsonScan is a minimal streaming JSON reader: it walks one value and
// hands every scalar it meets to a visitor with its key path (objects'
// keys; "[]" for array elements) and raw text, cut at maxScalar bytes.
// Malformed input just ends the walk.
type jsonScan struct {
	r   *bufio.Reader
	bad bool
}

const (
	maxScalar   = 4096
	maxScanDeep = 64
)

func (sc *jsonScan) next() byte {
	for !sc.bad {
		c, err := sc.r.ReadByte()
		if err != nil {
			sc.bad = true
			return 0
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

func (sc *jsonScan) value(path []string, visit func([]string, []byte)) {
	if len(path) > maxScanDeep {
		sc.bad = true
		return
	}
	switch c := sc.next(); {
	case sc.bad:
	case c == '{':
		for !sc.bad {
			k := sc.next()
			if k == '}' {
				return
			}
			if k != '"' {
				sc.bad = true
				return
			}
			key, _ := strconv.Unquote(string(sc.str()))
			if sc.next() != ':' {
				sc.bad = true
				return
			}
			sc.value(append(path[:len(path):len(path)], key), visit)
			switch sc.next() {
			case ',':
			case '}':
				return
			default:
				sc.bad = true
			}
		}
	case c == '[':
		if peek, err := sc.r.Peek(1); err == nil && peek[0] == ']' {
			_, _ = sc.r.ReadByte()
			return
		}
		for !sc.bad {
			sc.value(append(path[:len(path):len(path)], "[]"), visit)
			switch sc.next() {
			case ',':
			case ']':
				return
			default:
				sc.bad = true
			}
		}
	case c == '"':
		visit(path, sc.str())
	default:
		raw := []byte{c}
		for {
			b, err := sc.r.Peek(1)
			if err != nil || !isScalarByte(b[0]) {
				break
			}
			_, _ = sc.r.ReadByte()
			if len(raw) < maxScalar {
				raw = append(raw, b[0])
			}
		}
		visit(path, raw)
	}
}

// str reads the rest of a string whose opening quote was read and returns
// it quoted (cut at maxScalar bytes: then it no longer unquotes).
func (sc *jsonScan) str() []byte {
	raw := []byte{'"'}
	escaped := false
	for {
		c, err := sc.r.ReadByte()
		if err != nil {
			sc.bad = true
			return raw
		}
		if len(raw) < maxScalar {
			raw = append(raw, c)
		}
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			return raw
		}
	}
}

func isScalarByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// synthesized carries, out of readFrame, a message made in place of one
// too large to read.
type synthesized struct{ msg jsonrpc2.Message }

func (synthesized) Error() string { return "synthesized message" }
